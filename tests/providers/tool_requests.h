// The engine's requests with tools, as the vendors' tool tests send them: two tools
// offered, and a conversation whose model called both and whose calls were answered.
#pragma once

#include "tests/providers/harness.h"

#include <nlohmann/json.hpp>

#include <string>

namespace agentrt::test {

inline const nlohmann::json& weather_schema() {
  static const nlohmann::json schema = {
      {"properties", {{"city", {{"type", "string"}}}}}, {"required", {"city"}}, {"type", "object"}};
  return schema;
}

// get_weather (described, with a schema) and now (neither).
inline nlohmann::json offered_tools() {
  return nlohmann::json::array({{{"type", "function"},
                                 {"name", "get_weather"},
                                 {"description", "The weather in a city"},
                                 {"parameters", weather_schema()}},
                                {{"type", "function"}, {"name", "now"}}});
}

// A user asks; the model answered "Checking." and called get_weather (`weather_id`,
// `weather_arguments`) and now (call_2, `now_arguments`); both were answered, now's as
// an error.
inline nlohmann::json answered_request(const std::string& weather_id,
                                       const std::string& weather_arguments,
                                       const std::string& now_arguments) {
  using nlohmann::json;
  json request = user_request("Weather in Paris, and the time?");
  request["tools"] = offered_tools();
  request["messages"].push_back({{"role", "assistant"},
                                 {"content", json::array({{{"type", "text"}, {"text", "Checking."}},
                                                          {{"type", "tool_call"},
                                                           {"id", weather_id},
                                                           {"name", "get_weather"},
                                                           {"arguments", weather_arguments}},
                                                          {{"type", "tool_call"},
                                                           {"id", "call_2"},
                                                           {"name", "now"},
                                                           {"arguments", now_arguments}}})}});
  request["messages"].push_back({{"role", "tool"},
                                 {"content", json::array({{{"type", "tool_result"},
                                                           {"tool_call_id", weather_id},
                                                           {"output", "18 C, clear"}},
                                                          {{"type", "tool_result"},
                                                           {"tool_call_id", "call_2"},
                                                           {"output", "clock unavailable"},
                                                           {"is_error", true}}})}});
  return request;
}

}  // namespace agentrt::test
