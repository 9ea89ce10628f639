#include "core/providers/provider_registry.h"

#include "core/domain/errors.h"
#include "core/domain/json_fields.h"
#include "core/log/logger.h"

#include <algorithm>
#include <climits>
#include <mutex>

namespace agentrt::core {
namespace {

std::shared_ptr<ProviderInstance> instantiate(const PluginHost& plugins,
                                              const std::set<std::string>& disabled,
                                              const std::shared_ptr<const SecretFence>& fence,
                                              const ProviderRecord& r) {
  auto plugin = plugins.find(r.type);
  if (!plugin || plugin->kind() != AGENTRT_KIND_PROVIDER)
    throw invalid("provider '" + r.name + "': no provider plugin '" + r.type + "' is loaded");
  if (disabled.count(r.type))
    throw invalid("provider '" + r.name + "': the " + r.type + " plugin is disabled in the config");
  try {
    return std::make_shared<ProviderInstance>(plugin, plugin_config(r).dump(), fence);
  } catch (const PluginError& e) {
    throw invalid("provider '" + r.name + "': the " + r.type +
                  " plugin refused its config: " + e.what());
  }
}

}  // namespace

ProviderRegistry::ProviderRegistry(StateStore& store, const PluginHost& plugins, SecretFence fence)
    : store_(store),
      plugins_(plugins),
      fence_(std::make_shared<const SecretFence>(std::move(fence))) {}

void ProviderRegistry::add_configured(const std::string& name,
                                      std::shared_ptr<ProviderInstance> instance,
                                      std::vector<ModelInfo> models) {
  Entry entry;
  entry.record.name = entry.record.type = name;
  entry.instance = std::move(instance);
  entry.configured = true;
  entry.record.models = std::move(models);
  std::unique_lock lock(mutex_);
  for (const auto& model : entry.record.models) {
    if (models_.count(model.id)) {
      log_error("model served twice; keeping the first", {{"model", model.id}, {"provider", name}});
      continue;
    }
    models_[model.id] = name;
  }
  providers_[name] = std::move(entry);
}

std::vector<ProviderRecord> ProviderRegistry::stored() const {
  std::vector<ProviderRecord> records;
  store_.read([&](Connection& db) {
    auto row = db.prepare(
        "SELECT name, type, base_url, api_key_ref, models, created_at, updated_at, options, seq "
        "FROM shared_providers ORDER BY seq");
    while (row.step()) {
      ProviderRecord r;
      r.name = row.column_text(0);
      r.type = row.column_text(1);
      r.base_url = row.column_is_null(2) ? "" : row.column_text(2);
      r.api_key_ref =
          row.column_is_null(3) ? nlohmann::json() : nlohmann::json::parse(row.column_text(3));
      r.models = models_from_json(nlohmann::json::parse(row.column_text(4)));
      r.created_at = row.column_text(5);
      r.updated_at = row.column_text(6);
      r.options = nlohmann::json::parse(row.column_text(7));
      r.seq = row.column_int(8);
      records.push_back(std::move(r));
    }
  });
  return records;
}

// What the config enables wins over what the admin API stored: a shared provider that
// a later config shadows (its name, or one of its model ids, now served by a plugin of
// the config) is left out, said so, and can still be deleted. The API refuses the same
// clash when it is made (check_unique).
std::optional<std::string> ProviderRegistry::clash_with_config(const ProviderRecord& record) const {
  auto named = providers_.find(record.name);
  if (named != providers_.end() && named->second.configured)
    return "its name is a plugin's enabled in the config";
  for (const auto& model : record.models) {
    auto served = models_.find(model.id);
    if (served != models_.end())
      return "model id '" + model.id + "' is served by '" + served->second + "'";
  }
  return std::nullopt;
}

void ProviderRegistry::load_shared() {
  for (ProviderRecord& record : stored()) {
    if (auto clash = clash_with_config(record)) {
      log_error("shared provider not served: the config shadows it; delete it or change the config",
                {{"provider", record.name}, {"reason", *clash}});
      shadowed_.insert(record.name);
      continue;
    }
    if (auto refusal = fence_refusal(*fence_, record.api_key_ref))
      log_error(
          "shared provider's api_key_ref breaks the secrets fence: its key will not resolve "
          "until an admin saves it with a reference inside the fence",
          {{"provider", record.name}, {"reason", *refusal}});
    std::shared_ptr<ProviderInstance> instance;
    try {
      instance = instantiate(plugins_, disabled_, fence_, record);
    } catch (const DomainError& e) {
      log_error("shared provider unavailable", {{"provider", record.name}, {"reason", e.what()}});
    }
    const std::string name = record.name;  // the record moves into the entry below
    std::unique_lock lock(mutex_);
    for (const auto& model : record.models) models_[model.id] = name;
    providers_[name] = Entry{std::move(record), instance, false};
  }
}

std::set<std::string> ProviderRegistry::provider_types() const {
  std::set<std::string> types;
  for (const auto& plugin : plugins_.plugins())
    if (plugin->kind() == AGENTRT_KIND_PROVIDER && !disabled_.count(plugin->name()))
      types.insert(plugin->name());
  return types;
}

// Every model id once, across the request and every provider it does not replace.
void ProviderRegistry::check_unique(const std::vector<ProviderRecord>& incoming) const {
  std::map<std::string, std::string> owner;  // model id -> provider name
  std::set<std::string> names;
  for (const auto& r : incoming) {
    if (!names.insert(r.name).second)
      throw conflict("provider '" + r.name + "' appears twice in the request");
    auto existing = providers_.find(r.name);
    if (existing != providers_.end() && existing->second.configured)
      throw conflict("provider name '" + r.name + "' is taken by a plugin enabled in the config");
    for (const auto& m : r.models)
      if (!owner.emplace(m.id, r.name).second)
        throw conflict("model id '" + m.id + "' is offered twice in the request");
  }
  for (const auto& [model, provider] : models_) {
    if (names.count(provider)) continue;  // replaced by this request
    auto clash = owner.find(model);
    if (clash != owner.end())
      throw conflict("model id '" + model + "' of provider '" + clash->second +
                     "' is already offered by provider '" + provider + "'");
  }
}

void ProviderRegistry::persist(std::vector<ProviderRecord>& records) {
  store_.write([&](Connection& db) {
    for (auto& r : records) {
      auto upsert = db.prepare(
          "INSERT INTO shared_providers(name, type, base_url, api_key_ref, models, created_at, "
          "updated_at, options) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7) ON CONFLICT(name) DO "
          "UPDATE SET type = ?2, base_url = ?3, api_key_ref = ?4, models = ?5, updated_at = ?6, "
          "options = ?7");
      upsert.bind(1, r.name).bind(2, r.type).bind(5, models_json(r.models).dump());
      upsert.bind(6, r.updated_at).bind(7, r.options.dump());
      if (r.base_url.empty())
        upsert.bind_null(3);
      else
        upsert.bind(3, r.base_url);
      if (r.api_key_ref.is_null())
        upsert.bind_null(4);
      else
        upsert.bind(4, r.api_key_ref.dump());
      upsert.run();
      auto seq = db.prepare("SELECT seq FROM shared_providers WHERE name = ?");
      if (seq.bind(1, r.name).step()) r.seq = seq.column_int(0);
      db.prepare("DELETE FROM provider_models WHERE provider_name = ?").bind(1, r.name).run();
      for (const auto& m : r.models)
        db.prepare("INSERT INTO provider_models(model_id, provider_name) VALUES (?, ?)")
            .bind(1, m.id)
            .bind(2, r.name)
            .run();
    }
  });
}

nlohmann::json ProviderRegistry::upsert(const nlohmann::json& body) {
  require_object(body);
  reject_unknown_fields(body, {"providers"});
  auto list = body.find("providers");
  if (list == body.end() || !list->is_array() || list->empty())
    throw invalid("field 'providers' must be a non-empty array");
  std::vector<ProviderRecord> records;
  std::set<std::string> types = provider_types();
  for (size_t i = 0; i < list->size(); ++i) {
    records.push_back(parse_provider((*list)[i], i, types));
    if (auto refusal = fence_refusal(*fence_, records.back().api_key_ref))
      throw invalid("field 'providers[" + std::to_string(i) + "].api_key_ref.value': " + *refusal);
  }

  // Instances first: a config the plugin refuses stops the request before anything is
  // stored. One writer at a time so the uniqueness check stays true until the swap.
  std::vector<std::shared_ptr<ProviderInstance>> instances;
  for (const auto& r : records) instances.push_back(instantiate(plugins_, disabled_, fence_, r));
  std::unique_lock lock(mutex_);
  check_unique(records);
  const std::string now = utc_timestamp_now();
  for (auto& r : records) {
    auto existing = providers_.find(r.name);
    r.created_at = existing != providers_.end() ? existing->second.record.created_at : now;
    r.updated_at = now;
  }
  persist(records);
  for (size_t i = 0; i < records.size(); ++i) {
    for (auto it = models_.begin(); it != models_.end();)
      it = it->second == records[i].name ? models_.erase(it) : std::next(it);
    for (const auto& m : records[i].models) models_[m.id] = records[i].name;
    providers_[records[i].name] = Entry{records[i], instances[i], false};
    shadowed_.erase(records[i].name);
    log_info("shared provider saved", {{"provider", records[i].name}, {"type", records[i].type}});
  }
  return list_locked(PageRequest{});
}

nlohmann::json ProviderRegistry::list(const PageRequest& page) const {
  std::shared_lock lock(mutex_);
  return list_locked(page);
}

// Newest first and paged like every list, not by name and whole, from the entries in
// memory, which hold every shared provider served.
nlohmann::json ProviderRegistry::list_locked(const PageRequest& page) const {
  std::vector<const ProviderRecord*> records;
  for (const auto& [name, entry] : providers_)
    if (!entry.configured && entry.record.seq < page.after.value_or(INT64_MAX))
      records.push_back(&entry.record);
  std::sort(records.begin(), records.end(),
            [](const ProviderRecord* a, const ProviderRecord* b) { return a->seq > b->seq; });
  const bool more = records.size() > static_cast<size_t>(page.limit);
  if (more) records.resize(static_cast<size_t>(page.limit));
  nlohmann::json data = nlohmann::json::array();
  for (const ProviderRecord* record : records) data.push_back(public_json(*record));
  return page_body(std::move(data), more, records.empty() ? 0 : records.back()->seq);
}

void ProviderRegistry::remove(const std::string& name) {
  std::unique_lock lock(mutex_);
  auto delete_row = [&] {
    store_.write([&](Connection& db) {
      db.prepare("DELETE FROM shared_providers WHERE name = ?").bind(1, name).run();
    });
  };
  if (shadowed_.count(name)) {  // stored, never served: only its row goes
    delete_row();
    shadowed_.erase(name);
    log_info("shared provider deleted", {{"provider", name}});
    return;
  }
  auto it = providers_.find(name);
  if (it == providers_.end() || it->second.configured)
    throw not_found("shared provider '" + name + "' not found");
  delete_row();
  for (auto m = models_.begin(); m != models_.end();)
    m = m->second == name ? models_.erase(m) : std::next(m);
  providers_.erase(it);
  log_info("shared provider deleted", {{"provider", name}});
}

std::optional<ResolvedModel> ProviderRegistry::resolve(const std::string& model_id) const {
  std::shared_lock lock(mutex_);
  auto model = models_.find(model_id);
  if (model == models_.end()) return std::nullopt;
  const Entry& entry = providers_.at(model->second);
  for (const auto& m : entry.record.models) {
    if (m.id != model_id) continue;
    ResolvedModel resolved{entry.record.name, m, entry.instance};
    // A plugin built before ABI 1.8 cannot be sent tools, whatever its record says.
    if (entry.instance && entry.instance->plugin().abi_minor() < 8)
      resolved.model.supports_tools = false;
    return resolved;
  }
  return std::nullopt;
}

std::vector<ProviderRegistry::ServedModel> ProviderRegistry::served_models() const {
  std::shared_lock lock(mutex_);
  std::vector<ServedModel> served;
  served.reserve(models_.size());
  for (const auto& [id, provider] : models_)
    served.push_back({id, provider, providers_.at(provider).record.created_at});
  return served;
}

}  // namespace agentrt::core
