#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace agentrt::test {

inline std::string fixture(const std::string& name) {
  return std::string(AGENTRT_TEST_FIXTURE_DIR) + "/" + name + ".so";
}
// A provider request of one user message: `text`, to `model`.
inline std::string one_message_request(const std::string& model, const std::string& text) {
  return nlohmann::json{
      {"model", model},
      {"messages", {{{"role", "user"}, {"content", {{{"type", "text"}, {"text", text}}}}}}}}
      .dump();
}
inline std::string bundled(const std::string& name) {
  return std::string(AGENTRT_TEST_BUNDLED_DIR) + "/agentrt-" + name + ".so";
}

}  // namespace agentrt::test
