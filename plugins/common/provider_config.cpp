#include "common/provider_config.h"

#include <agentrt/plugin.hpp>

#include <limits>

namespace agentrt::providers {
namespace {

using nlohmann::json;

class ConfigReader {
 public:
  explicit ConfigReader(const std::string& plugin) : plugin_(plugin) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT, plugin_ + " config: " + what);
  }

  std::string string(const std::string& key, const json& value) const {
    if (!value.is_string()) fail("'" + key + "' must be a string");
    return value.get<std::string>();
  }

  long positive_ms(const std::string& key, const json& value) const {
    if (!value.is_number_integer() || value.get<int64_t>() <= 0 ||
        value.get<int64_t>() > std::numeric_limits<int32_t>::max())
      fail("'" + key + "' must be a positive integer of milliseconds");
    return static_cast<long>(value.get<int64_t>());
  }

  std::string base_url(const json& value) const {
    std::string url = string("base_url", value);
    if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
      fail("'base_url' must start with http:// or https://");
    // The URL is shown and may be logged; a key belongs in api_key_ref, never shown. The
    // admin API refused this, and the config file, read here alone, took it.
    const size_t authority = url.find("://") + 3;
    if (url.substr(authority, url.find_first_of("/?#", authority) - authority).find('@') !=
        std::string::npos)
      fail("'base_url' must not hold credentials (user:password@); give the key as api_key_ref");
    while (!url.empty() && url.back() == '/') url.pop_back();
    return url;
  }

  std::string key_ref(const json& value) const {
    if (value.is_null()) return "";
    if (!value.is_object() || !value.contains("source") || !value["source"].is_string() ||
        !value.contains("value") || !value["value"].is_string() || value.size() != 2)
      fail("'api_key_ref' must be {\"source\":string,\"value\":string}");
    const std::string& source = value["source"].get_ref<const std::string&>();
    if (source != "inline" && source != "env" && source != "file")
      fail("'api_key_ref.source' must be one of inline, env, file");
    if (value["value"].get_ref<const std::string&>().empty())
      fail("'api_key_ref.value' must not be empty");
    return value.dump();
  }

  json models(const json& value) const {
    if (!value.is_array()) fail("'models' must be an array");
    for (const json& model : value) {
      if (!model.is_object() || !model.contains("id") || !model["id"].is_string())
        fail("every entry of 'models' must be an object with a string 'id'");
      for (const auto& item : model.items())
        if (item.key() != "id" && item.key() != "context_window" &&
            item.key() != "supports_vision" && item.key() != "supports_tools")
          fail("unknown key '" + item.key() + "' in an entry of 'models'");
    }
    return value;
  }

 private:
  const std::string& plugin_;
};

}  // namespace

ProviderConfig parse_provider_config(const std::string& plugin, const std::string& config_json) {
  ConfigReader read(plugin);
  json config = json::parse(config_json, nullptr, /*allow_exceptions=*/false);
  if (!config.is_object()) read.fail("not a JSON object");
  ProviderConfig out;
  bool has_base_url = false;
  for (const auto& [key, value] : config.items()) {
    if (key == "name") {
      out.name = read.string(key, value);
    } else if (key == "base_url") {
      out.base_url = read.base_url(value);
      has_base_url = true;
    } else if (key == "api_key_ref") {
      out.api_key_ref = read.key_ref(value);
    } else if (key == "models") {
      out.models = read.models(value);
    } else if (key == "connect_timeout_ms") {
      out.connect_timeout_ms = read.positive_ms(key, value);
    } else if (key == "stall_timeout_ms") {
      out.stall_timeout_ms = read.positive_ms(key, value);
    } else {
      read.fail("unknown key '" + key + "'");
    }
  }
  if (!has_base_url) read.fail("'base_url' is required");
  return out;
}

}  // namespace agentrt::providers
