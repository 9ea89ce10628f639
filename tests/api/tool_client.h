// Shared pieces of the tool API tests: a client tool and a tool message answering calls.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace agentrt::test {

inline const nlohmann::json& weather_tool() {
  static const nlohmann::json tool = {{"type", "function"},
                                      {"name", "get_weather"},
                                      {"description", "The weather in a city"},
                                      {"parameters",
                                       {{"type", "object"},
                                        {"properties", {{"city", {{"type", "string"}}}}},
                                        {"required", {"city"}}}}};
  return tool;
}

// The events of one type, in order.
inline std::vector<nlohmann::json> of_type(const std::vector<nlohmann::json>& events,
                                           const std::string& type) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& e : events)
    if (e.value("type", "") == type) out.push_back(e);
  return out;
}

// A tool message of one tool_result part per (call id, output).
inline nlohmann::json tool_message(
    const std::vector<std::pair<std::string, std::string>>& results) {
  nlohmann::json parts = nlohmann::json::array();
  for (const auto& [id, output] : results)
    parts.push_back({{"type", "tool_result"}, {"tool_call_id", id}, {"output", output}});
  return {{"role", "tool"}, {"content", parts}};
}

}  // namespace agentrt::test
