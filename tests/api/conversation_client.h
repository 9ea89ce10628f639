// Shared pieces of the conversation API tests: a message body, an agentd with a slow
// echo, and a /run stream opened with a token.
#pragma once

#include "tests/api/admin_client.h"
#include "tests/api/sse_client.h"

#include <memory>
#include <string>

namespace agentrt::test {

inline nlohmann::json user_text(const std::string& text) {
  return {{"role", "user"}, {"content", {{{"type", "text"}, {"text", text}}}}};
}

inline nlohmann::json run_body(const std::string& text,
                               nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json body = {{"model", "echo"}, {"messages", {user_text(text)}}};
  body.update(extra);
  return body;
}

// agentd whose echo waits `delay_ms` before each fragment, with extra config.
inline AgentdOptions slow_echo(int delay_ms, const TempDir& dir,
                               nlohmann::json more = nlohmann::json::object(),
                               std::vector<std::string> args = {}) {
  nlohmann::json config = {{"plugins", {{"echo", {{"config", {{"delay_ms", delay_ms}}}}}}}};
  config.update(more);
  AgentdOptions options;
  options.args = {"--config", dir.write("config.json", config.dump())};
  options.args.insert(options.args.end(), args.begin(), args.end());
  return options;
}

inline std::unique_ptr<SseClient> open_run(const AgentdProcess& agentd, const std::string& token,
                                           const nlohmann::json& body,
                                           const std::string& path = "/run") {
  return std::make_unique<SseClient>(
      agentd.port(), "POST", path,
      std::vector<std::pair<std::string, std::string>>{{"Authorization", "Bearer " + token},
                                                       {"Content-Type", "application/json"}},
      body.dump());
}

inline std::string joined_text(const std::vector<nlohmann::json>& events) {
  std::string text;
  for (const auto& e : events)
    if (e.value("type", "") == "stream_delta") text += e.value("content", "");
  return text;
}

}  // namespace agentrt::test
