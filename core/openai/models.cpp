#include "core/openai/models.h"

#include "core/openai/openai_fields.h"

#include <cstdio>
#include <ctime>

namespace agentrt::core::openai {
namespace {

// "2026-12-07T10:00:00.123Z" (utc_timestamp_now) as Unix seconds; 0 when it is not one.
int64_t unix_seconds(const std::string& timestamp) {
  std::tm tm{};
  if (std::sscanf(timestamp.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon,
                  &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
    return 0;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&tm));
}

nlohmann::json object_of(const ProviderRegistry::ServedModel& model) {
  return {{"id", model.id},
          {"object", "model"},
          {"created", unix_seconds(model.created_at)},
          {"owned_by", model.provider}};
}

}  // namespace

nlohmann::json model_list(const ProviderRegistry& providers) {
  nlohmann::json data = nlohmann::json::array();
  for (const ProviderRegistry::ServedModel& model : providers.served_models())
    data.push_back(object_of(model));
  return {{"object", "list"}, {"data", std::move(data)}};
}

nlohmann::json model_object(const ProviderRegistry& providers, const std::string& id) {
  for (const ProviderRegistry::ServedModel& model : providers.served_models())
    if (model.id == id) return object_of(model);
  throw ParamError(ErrorKind::not_found, "model_not_found", "model",
                   "The model '" + id + "' does not exist.");
}

}  // namespace agentrt::core::openai
