#include "core/engine/engine.h"

#include "core/domain/errors.h"
#include "core/domain/paging.h"
#include "core/limits/memory_rate_limiter.h"
#include "core/log/logger.h"
#include "core/store/cursor_key.h"
#include "core/store/meta.h"
#include "core/store/store_files.h"
#include "core/tools/memory_tools.h"
#include "core/tools/offered_tools.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace agentrt::core {
namespace {

// Created with mode 0600 from the start: no window in which others could read it.
void write_private_file(const std::string& path, const std::string& content) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw StartError("cannot write " + path);
  ::fchmod(fd, 0600);
  bool ok = ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
  ::close(fd);
  if (!ok) throw StartError("cannot write " + path);
}

// A layer's count in a memory backend's totals ({"about_me":3,...}). One it does not
// give, or gives as something else than a number, reads as 1: the layer is listed.
int64_t layer_total(const nlohmann::json& totals, std::string_view layer) {
  const auto it = totals.find(layer);
  return it != totals.end() && it->is_number() ? it->get<int64_t>() : 1;
}

}  // namespace

Engine::Engine(Config config, std::vector<std::string> plugin_dirs)
    : config_(std::move(config)),
      plugin_dirs_(std::move(plugin_dirs)),
      started_(std::chrono::steady_clock::now()) {}

Engine::~Engine() {
  // Services and instances go before the host that holds their libraries.
  runs_.reset();  // first: it stops live runs that use the providers
  agents_.reset();
  memory_.reset();
  auth_.reset();
  registry_.reset();
  tool_server_admin_.reset();
  tool_servers_.reset();
  providers_.clear();
  others_.clear();
}

// Single-cell mode on a multi-cell data dir (a forgotten --mode multi) would serve only a
// new cell "default", which would stay there, and leave the tenants' cells unreachable.
void Engine::refuse_cells_beside_default() const {
  if (!single_cell()) return;
  const std::vector<std::string> others = cells_->cells_beside_default(4);
  if (others.empty()) return;
  std::string named;
  for (size_t i = 0; i < others.size() && i < 3; ++i) named += (i ? ", " : "") + others[i];
  if (others.size() > 3) named += ", ...";
  throw StartError("the data dir holds cells other than 'default' (" + named +
                   "), which single-cell mode cannot serve: start agentd with --mode multi");
}

// A guest opens what minting a token needs and changes nothing else: no schema upgrade,
// no default cell, no provider instances. The owner's whole start would upgrade an older
// serving agentd's stores under it, and make a cell "default" in a multi-cell deployment
// when started without --mode multi.
void Engine::start_guest() {
  store_ = std::make_unique<StateStore>(config_.data_dir, schema_migrations(),
                                        StateStore::Upgrades::refuse);
  host_.scan(plugin_dirs_, plugin_selection(config_));
  cells_ = std::make_unique<CellService>(*store_, single_cell());
  start_auth(EngineRole::guest);
}

StartReport Engine::start(EngineRole role) {
  started_ = std::chrono::steady_clock::now();
  const bool owner = role == EngineRole::owner;
  if (!owner) {
    start_guest();
    return {};
  }
  lock_ = std::make_unique<DataDirLock>(config_.data_dir);
  store_ = std::make_unique<StateStore>(config_.data_dir);
  refuse_lost_stores(*store_, config_.data_dir);
  cursor_key_ = cursor_key(*store_);
  use_cursor_key(cursor_key_);
  log_info("state store open",
           {{"path", store_->path()}, {"schema_version", store_->schema_version()}});
  audit_ = std::make_unique<AuditLog>(*store_, config_.audit);
  host_.scan(plugin_dirs_, plugin_selection(config_));
  create_instances();
  tool_servers_ = std::make_unique<ToolServers>(host_, config_.tool_servers);
  tool_server_admin_ = std::make_unique<ToolServerAdmin>(*store_, host_, *tool_servers_,
                                                         config_.disabled("mcp"), secret_fence());
  tool_server_admin_->load();
  cells_ = std::make_unique<CellService>(*store_, single_cell());
  refuse_cells_beside_default();
  // Tokens issued in single-cell mode name no cell, and a token of no cell is valid in
  // every cell: moved to multi mode, each reaches every tenant, those made later too. Not
  // refused, since the move is documented; said where it happens.
  if (cells_->record_mode())
    log_warn(
        "this data dir was last served in single-cell mode: the tokens issued then name no "
        "cell, so each now reaches every cell, those made later too; revoke them and issue "
        "tokens with a cell");
  cells_->ensure_default_cell();
  registry_ = std::make_unique<ProviderRegistry>(*store_, host_, secret_fence());
  std::set<std::string> disabled;
  for (const auto& [name, plugin] : config_.plugins)
    if (config_.disabled(name)) disabled.insert(name);
  registry_->set_disabled_types(disabled);
  for (const auto& [name, provider] : providers_)
    registry_->add_configured(name, provider.instance, provider.models);
  registry_->load_shared();
  sessions_ = std::make_unique<SessionStore>(*store_);
  cells_->add_cleanup(&SessionStore::remove_cell);
  RunSettings settings;
  settings.call.max_retries = config_.limits.provider_retries;
  settings.call.max_wait = std::chrono::milliseconds(config_.limits.provider_retry_max_wait_ms);
  settings.call.max_answer_bytes = config_.limits.max_answer_bytes;
  settings.call.max_answer_time = std::chrono::milliseconds(config_.limits.max_answer_ms);
  settings.history_cache_bytes = size_t{config_.limits.history_cache_mb} << 20;
  settings.max_tool_output_bytes = config_.limits.max_tool_output_bytes;
  agents_ = std::make_unique<AgentService>(*store_);
  agents_->check_models_with([registry = registry_.get()](const std::string& model) {
    return registry->resolve(model).has_value();
  });
  agents_->check_tools_with([servers = tool_servers_.get()](const AgentTools& tools) {
    check_agent_tools(*servers, tools);
  });
  cells_->add_cleanup(&AgentService::remove_cell);
  runs_ = std::make_unique<RunService>(*sessions_, *registry_, *agents_, settings);
  runs_->check_cells_with(
      [cells = cells_.get()](const std::string& cell, std::optional<int64_t> seq) {
        return cells->hold(cell, seq).has_value();
      });
  // The runs a killed agentd left: their replay would never end, their status never be
  // final. Nobody else serves this data dir, so none of them is live.
  if (const int64_t ended = runs_->end_abandoned_runs())
    log_info("runs left running by an earlier agentd ended as interrupted", {{"runs", ended}});
  start_limits();
  // Inside the deleting transaction, so every write of the cell's live runs queued
  // after it sees them discarded. Should that transaction fail, those runs are stopped
  // unstored all the same: the DELETE fails, and the cell keeps its state-store rows,
  // though what the other stores' cleanups (tokens, memory) committed before is gone:
  // the DELETE can be sent again to finish (docs/openapi.yaml, deleteCell).
  cells_->add_cleanup(
      [runs = runs_.get()](Connection&, const std::string& cell) { runs->discard_cell(cell); });
  cells_->add_forget([runs = runs_.get()](const std::string& cell) { runs->forget_cell(cell); });
  cells_->add_forget(
      [agents = agents_.get()](const std::string& cell) { agents->forget_cell(cell); });
  start_auth(EngineRole::owner);
  start_memory();
  record_stores(*store_, config_.data_dir);
  return bootstrap_admin_token();
}

std::shared_ptr<PluginInstance> Engine::service_plugin(const std::string& name, uint32_t kind,
                                                       const char* role,
                                                       const std::string& data_dir,
                                                       EngineRole engine_role) const {
  // A disabled plugin is never opened, so this comes first.
  if (config_.disabled(name))
    throw StartError(std::string(role) + " '" + name + "' is disabled in the config (plugins." +
                     name + ".enabled), and agentd cannot run without one");
  auto plugin = host_.find(name);
  if (!plugin || plugin->kind() != kind)
    throw StartError(std::string(role) + " '" + name + "' is not a loaded " +
                     plugin_kind_name(kind) + " plugin");
  nlohmann::json plugin_config = nlohmann::json::object();
  auto configured = config_.plugins.find(name);
  if (configured != config_.plugins.end()) plugin_config = configured->second.config;
  plugin_config["data_dir"] = std::filesystem::absolute(data_dir).string();
  // Since ABI 1.6; an older plugin, which may refuse keys it does not know, never sees it.
  if (engine_role == EngineRole::guest && plugin->abi_minor() >= 6) plugin_config["guest"] = true;
  // Since ABI 1.7, for the plugin's own list cursors (agentrt/cursor_seal.hpp).
  if (!cursor_key_.empty() && plugin->abi_minor() >= 7) plugin_config["cursor_key"] = cursor_key_;
  try {
    return std::make_shared<PluginInstance>(plugin, plugin_config.dump());
  } catch (const PluginError& e) {
    throw StartError(std::string(role) + " '" + name + "' failed to start: " + e.what());
  }
}

// Where the credential references the admin API writes may point: the config's
// secrets section (docs/operator-guide.md, "Secrets").
SecretFence Engine::secret_fence() const {
  return SecretFence{effective_secrets_dir(config_), config_.secrets.env_prefix};
}

CellHold Engine::cell_hold() const {
  return [this](const std::string& cell, std::optional<int64_t> seq) {
    return cells_->hold(cell, seq);
  };
}

// After the runs an earlier agentd left are ended, so that today's tokens are read
// from runs that are all over.
void Engine::start_limits() {
  limits_ = std::make_unique<limits::Limits>(*store_, config_.limits.cell_defaults,
                                             std::make_unique<limits::InMemoryRateLimiter>());
  limits_->load();
  runs_->admit_runs_with(limits_.get());
  cells_->add_forget(
      [limits = limits_.get()](const std::string& cell) { limits->forget_cell(cell); });
}

void Engine::start_auth(EngineRole role) {
  auth_ = std::make_unique<AuthService>(
      service_plugin(config_.auth, AGENTRT_KIND_AUTH, "auth module", config_.data_dir, role),
      cell_hold());
  cells_->add_cleanup([this](Connection&, const std::string& cell) { auth_->revoke_cell(cell); });
}

void Engine::start_memory() {
  memory_ = std::make_unique<MemoryService>(
      service_plugin(config_.memory_backend, AGENTRT_KIND_MEMORY_BACKEND, "memory backend",
                     config_.data_dir, EngineRole::owner),
      [this](const std::string& cell, const std::string& actor, const std::string& session) {
        return runs_->hold_session(cell, actor, session);
      },
      cell_hold());
  runs_->on_session_deleted([this](const std::string& cell, const std::string& session) {
    memory_->delete_session(cell, session);
  });
  cells_->add_cleanup([this](Connection&, const std::string& cell) { memory_->clear_cell(cell); });
  agents_->on_deleted([this](const std::string& cell, const std::string& namespace_) {
    memory_->clear_namespace(cell, namespace_);
  });
  runs_->set_memory_source([this](const MemoryScope& scope) { return run_memory(scope); });
  runs_->set_tools(tool_servers_.get(), [this](const ToolCall& call, const MemoryToolScope& scope) {
    return run_memory_tool(*memory_, call, scope);
  });
}

// The memory of a run's context, in the priority order of core/runs/context_window.h.
std::vector<MemoryItem> Engine::run_memory(const MemoryScope& scope) {
  constexpr int kPerLayer = 20;
  // Views, so that looking a layer up costs no string made and no strlen: every /chat
  // runs this loop.
  static constexpr std::string_view kPriority[] = {
      "agent_memory", "about_me", "consensus", "session", "working", "environment", "unknown"};
  std::vector<MemoryItem> items;
  // Most runs have little or no memory: one count saves a list call per empty layer.
  // agent_memory is read for one namespace (the actor's entries there), so the actor's
  // count of the layer, across every namespace, says nothing about it.
  const MemoryTotalsCache::Totals totals = memory_->visible_totals(scope.cell, scope.actor);
  for (const std::string_view layer : kPriority) {
    if (std::find(scope.layers.begin(), scope.layers.end(), layer) == scope.layers.end()) continue;
    const bool agent_layer = layer == "agent_memory";
    if (agent_layer && !scope.agent_namespace) continue;
    if (!agent_layer && layer_total(*totals, layer) == 0) continue;
    const bool session_layer = layer == "session";
    auto entries =
        memory_->recent(scope.cell, std::string(layer), scope.actor,
                        agent_layer ? scope.agent_namespace : std::nullopt,
                        session_layer ? std::optional<std::string>(scope.session_id) : std::nullopt,
                        kPerLayer, scope.max_entry_tokens);
    for (const auto& entry : entries)
      items.push_back({std::string(layer), entry.value("content", "")});
  }
  return items;
}

// The first start on an empty store makes the admin token; a marker in the store, not
// the token list, says whether that happened, so revoking every admin token and
// restarting does not mint a new one for whoever reads stderr.
StartReport Engine::bootstrap_admin_token() {
  bool done = false;
  store_->read([&](Connection& db) { done = meta_value(db, "admin_bootstrapped").has_value(); });
  if (done) return {};
  StartReport report;
  report.first_admin_token = auth_->mint_admin();
  if (config_.admin_token_file.value_or(single_cell())) {
    auto path = (std::filesystem::path(config_.data_dir) / "admin.token").string();
    write_private_file(path, *report.first_admin_token + "\n");
    report.admin_token_file = path;
  }
  store_->write([&](Connection& db) { set_meta_value(db, "admin_bootstrapped", "1"); });
  return report;
}

void Engine::create_instances() {
  for (const auto& [name, plugin_config] : config_.plugins) {
    // The auth module and the memory backend are made by start_auth/start_memory.
    if (!plugin_config.enabled || name == config_.auth || name == config_.memory_backend) continue;
    auto plugin = host_.find(name);
    if (!plugin) {
      create_errors_[name] =
          host_.discovered(name)
              ? "enabled in the config, but its file was refused (agentd plugins says why)"
              : "enabled in the config but not found in the plugin directories";
      log_error("plugin not available", {{"name", name}, {"reason", create_errors_[name]}});
      continue;
    }
    // A tool plugin's instances are tool servers, one for each `tool_servers` entry of
    // its type: enabling the plugin makes none.
    if (plugin->kind() == AGENTRT_KIND_TOOL) continue;
    try {
      const std::string json = plugin_config.config.dump();
      if (plugin->kind() == AGENTRT_KIND_PROVIDER)
        create_provider(name, plugin, json);
      else
        others_[name] = std::make_shared<PluginInstance>(plugin, json);
    } catch (const std::exception& e) {
      create_errors_[name] = e.what();
      log_error("plugin refused",
                {{"name", name}, {"path", plugin->path()}, {"reason", create_errors_[name]}});
    }
  }
}

// Its models are asked for here, once: a provider whose list fails (its upstream down,
// for a plugin that asks it) or breaks the SDK's shape is refused like one whose create
// fails, logged and left out. It once stopped serve from starting, and check-config,
// which never asked, said the config was fine.
void Engine::create_provider(const std::string& name, std::shared_ptr<const LoadedPlugin> plugin,
                             const std::string& json) {
  auto instance = std::make_shared<ProviderInstance>(std::move(plugin), json);
  std::vector<ModelInfo> models;
  try {
    models = parse_model_list(instance->list_models());
  } catch (const PluginError& e) {
    throw std::runtime_error(std::string("its list_models failed: ") + e.what());
  } catch (const DomainError& e) {
    throw std::runtime_error(std::string("its list_models answer breaks the SDK's shape: ") +
                             e.what());
  }
  providers_[name] = {std::move(instance), std::move(models)};
}

HealthReport Engine::health() const {
  HealthReport report;
  // Every store, not only the engine's own: memory and tokens failing make an instance as
  // unusable to clients as a failing state store.
  report.storage_ok =
      store_ && store_->healthy() && (!auth_ || auth_->usable()) && (!memory_ || memory_->usable());
  report.uptime_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  for (const auto& plugin : host_.plugins()) {
    if (create_errors_.count(plugin->name()) || config_.disabled(plugin->name())) continue;
    report.plugins.push_back({plugin->name(), plugin_kind_name(plugin->kind()), plugin->version()});
  }
  return report;
}

std::vector<PluginStatus> Engine::plugin_statuses() const {
  if (store_) return fold_create_errors(host_.statuses(), create_errors_);
  // Not started: discover and create on a private host, as start() would.
  Engine probe(config_, plugin_dirs_);
  probe.host_.scan(plugin_dirs_, plugin_selection(config_));
  probe.create_instances();
  return fold_create_errors(probe.host_.statuses(), probe.create_errors_);
}

std::vector<std::string> Engine::service_problems() const {
  std::vector<std::string> problems;
  for (size_t i = 0; i < config_.plugin_dirs.size(); ++i) {
    std::error_code ec;
    if (!std::filesystem::is_directory(config_.plugin_dirs[i], ec))
      problems.push_back("plugin_dirs[" + std::to_string(i) + "]: '" + config_.plugin_dirs[i] +
                         "' is not a directory");
    else if (std::filesystem::directory_iterator(config_.plugin_dirs[i], ec); ec)
      problems.push_back("plugin_dirs[" + std::to_string(i) + "]: '" + config_.plugin_dirs[i] +
                         "' cannot be read: " + ec.message());
  }
  std::string scratch = (std::filesystem::temp_directory_path() / "agentd-check-XXXXXX").string();
  if (mkdtemp(scratch.data()) == nullptr) {
    problems.push_back("cannot make a scratch directory to try the services in: " + scratch);
    return problems;
  }
  Engine probe(config_, plugin_dirs_);
  probe.host_.scan(plugin_dirs_, plugin_selection(config_));
  const struct {
    const std::string& name;
    uint32_t kind;
    const char* role;
  } services[] = {{config_.auth, AGENTRT_KIND_AUTH, "auth module"},
                  {config_.memory_backend, AGENTRT_KIND_MEMORY_BACKEND, "memory backend"}};
  for (const auto& service : services) {
    try {
      probe.service_plugin(service.name, service.kind, service.role, scratch);
    } catch (const StartError& e) {
      problems.push_back(e.what());
    }
  }
  // serve starts without these, but only logs them: a check of the config names them.
  probe.create_instances();
  for (std::string& problem : probe.plugin_problems()) problems.push_back(std::move(problem));
  std::error_code ignored;
  std::filesystem::remove_all(scratch, ignored);
  return problems;
}

std::vector<std::string> Engine::plugin_problems() const {
  std::vector<std::string> problems;
  for (const auto& [name, reason] : create_errors_)
    problems.push_back("plugins." + name + ": " + reason);
  // "ech0": {"enabled": false} disables nothing, and echo stays on.
  for (const auto& [name, plugin] : config_.plugins)
    if (!plugin.enabled && !host_.discovered(name))
      problems.push_back("plugins." + name +
                         ": disabled, but no plugin directory holds a plugin of that name");
  // serve logs a model two providers list and keeps the first (add_configured, in name
  // order): the second's is never served.
  std::map<std::string, std::string> served_by;
  for (const auto& [name, provider] : providers_) {
    for (const ModelInfo& model : provider.models) {
      auto [first, added] = served_by.emplace(model.id, name);
      if (!added)
        problems.push_back("plugins." + name + ": model '" + model.id + "' is served by '" +
                           first->second + "' already; this provider's is never used");
    }
  }
  return problems;
}

std::vector<PluginStatus> Engine::fold_create_errors(
    std::vector<PluginStatus> statuses, const std::map<std::string, std::string>& errors) {
  for (PluginStatus& status : statuses) {
    auto it = status.loaded ? errors.find(status.name) : errors.end();
    if (it == errors.end()) continue;
    status.loaded = false;
    status.error = it->second;
  }
  return statuses;
}

std::shared_ptr<ProviderInstance> Engine::provider(const std::string& plugin_name) const {
  auto it = providers_.find(plugin_name);
  return it == providers_.end() ? nullptr : it->second.instance;
}

}  // namespace agentrt::core
