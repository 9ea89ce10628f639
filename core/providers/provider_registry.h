// Which provider instance serves which model. Two sources: provider plugins enabled in
// the config (their models come from the plugin, e.g. echo's "echo"), and shared
// providers configured over the admin API and kept in the state store. A model id is
// unique across both.
#pragma once

#include "core/domain/paging.h"
#include "core/domain/secret_ref.h"
#include "core/plugin_host/plugin_host.h"
#include "core/providers/provider_config.h"
#include "core/store/state_store.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>

namespace agentrt::core {

struct ResolvedModel {
  std::string provider;
  ModelInfo model;
  std::shared_ptr<ProviderInstance> instance;
};

class ProviderRegistry {
 public:
  // `fence`: where the api_key_refs the API writes may point (core/domain/secret_ref.h);
  // checked when a provider is saved and again at every lookup of its key.
  ProviderRegistry(StateStore& store, const PluginHost& plugins, SecretFence fence = {});

  // Provider plugins the config disables: no shared provider may be of their type (an
  // operator who disables openai forbids its remote calls). Before load_shared.
  void set_disabled_types(std::set<std::string> disabled) { disabled_ = std::move(disabled); }

  // A provider plugin instance enabled in the config, under its plugin name, serving
  // `models` (parse_model_list of its list_models, asked once when it was made).
  void add_configured(const std::string& name, std::shared_ptr<ProviderInstance> instance,
                      std::vector<ModelInfo> models);

  // Recreates the instances of the stored shared providers; a provider whose plugin is
  // gone or refuses its config is logged and left without an instance, and one that a
  // provider of the config shadows (by name or model id) is logged and not served. One
  // whose key reference, stored before the fence, points outside it is logged and
  // served: its lookups fail, each logged, until an admin saves it anew.
  void load_shared();

  // Upserts every provider of {"providers":[...]} by name, all or nothing, and answers
  // the full list. 400 for bad fields or a config the plugin refuses, 409 for a model
  // id or name that is already taken; 400 for an api_key_ref outside the fence, naming
  // the rule.
  nlohmann::json upsert(const nlohmann::json& body);
  // {"data","next_cursor"} of shared providers, newest first, keys masked.
  nlohmann::json list(const PageRequest& page = {}) const;
  void remove(const std::string& name);  // 404

  std::optional<ResolvedModel> resolve(const std::string& model_id) const;

  // Every model served, by id: its provider's name, and when that provider was stored
  // (empty for one of the config file).
  struct ServedModel {
    std::string id, provider, created_at;
  };
  std::vector<ServedModel> served_models() const;

 private:
  struct Entry {
    ProviderRecord record;
    std::shared_ptr<ProviderInstance> instance;
    bool configured = false;  // from the config file, not the admin API
  };
  std::set<std::string> provider_types() const;
  std::optional<std::string> clash_with_config(const ProviderRecord& record) const;
  void check_unique(const std::vector<ProviderRecord>& incoming) const;
  std::vector<ProviderRecord> stored() const;
  void persist(std::vector<ProviderRecord>& records);  // sets each record's seq
  nlohmann::json list_locked(const PageRequest& page) const;

  StateStore& store_;
  const PluginHost& plugins_;
  const std::shared_ptr<const SecretFence> fence_;
  mutable std::shared_mutex mutex_;
  std::map<std::string, Entry> providers_;     // by provider name
  std::map<std::string, std::string> models_;  // model id -> provider name
  std::set<std::string> shadowed_;             // stored, left out for the config's sake
  std::set<std::string> disabled_;             // provider plugins the config disables
};

}  // namespace agentrt::core
