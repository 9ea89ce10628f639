#include "core/domain/plugin_call.h"

namespace agentrt::core {

ErrorKind error_kind_for(int32_t abi_code) {
  switch (abi_code) {
    case AGENTRT_ERR_INVALID_ARGUMENT:
      return ErrorKind::invalid;
    case AGENTRT_ERR_UNAUTHENTICATED:
      return ErrorKind::unauthorized;
    case AGENTRT_ERR_PERMISSION:
      return ErrorKind::forbidden;
    case AGENTRT_ERR_NOT_FOUND:
      return ErrorKind::not_found;
    case AGENTRT_ERR_CONFLICT:
      return ErrorKind::conflict;
    case AGENTRT_ERR_UNAVAILABLE:
    case AGENTRT_ERR_TIMEOUT:
      return ErrorKind::unavailable;
    default:
      return ErrorKind::internal;
  }
}

nlohmann::json call_plugin_json(const PluginInstance& plugin, agentrt_json_call_fn fn,
                                const nlohmann::json& request) {
  std::string answer;
  try {
    answer = plugin.call_json(fn, request.dump());
  } catch (const PluginError& e) {
    throw DomainError(error_kind_for(e.code), e.what());
  }
  auto parsed = nlohmann::json::parse(answer, nullptr, false);
  if (!parsed.is_object())
    throw DomainError(ErrorKind::internal,
                      "plugin '" + plugin.plugin().name() + "' answered with something not JSON");
  return parsed;
}

std::chrono::seconds allowed_reuse(const nlohmann::json& answer) {
  if (!answer.is_object()) return std::chrono::seconds(0);
  const auto reuse = answer.find("cache_s");
  if (reuse == answer.end() || !reuse->is_number_integer()) return std::chrono::seconds(0);
  return std::chrono::seconds(reuse->get<int64_t>());
}

}  // namespace agentrt::core
