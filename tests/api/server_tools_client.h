// Shared pieces of the server tool API tests: agentd with the tool-fixture plugin as
// tool servers and a fake OpenAI upstream as the model, agents that reference them, and
// the messages that answer pending calls.
#pragma once

#include "tests/api/tool_client.h"
#include "tests/api/vendor_client.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentrt::test {

// calc: the fixture's tools (add, wait, fail, down, big, whoami), 1.5 s a call;
// guarded: the same, named g_*, each call approved first; slow: calc's without its
// timeout; twin: calc's names again, to clash with it. Tool outputs are cut at 4 KiB,
// and a shutdown waits a second for running streams.
inline AgentdOptions server_tools_options(const TempDir& dir) {
  const nlohmann::json config = {
      {"plugin_dirs", {AGENTRT_TEST_FIXTURE_DIR}},
      {"limits", {{"max_tool_output_bytes", 4096}}},
      {"server", {{"shutdown_grace_s", 1}}},
      {"tool_servers",
       {{{"name", "calc"}, {"type", "tool-fixture"}, {"timeout_ms", 1500}},
        {{"name", "guarded"},
         {"type", "tool-fixture"},
         {"prefix", "g_"},
         {"require_approval", "always"}},
        {{"name", "slow"}, {"type", "tool-fixture"}},
        {{"name", "twin"}, {"type", "tool-fixture"}}}}};
  return with_args({"--config", dir.write("config.json", config.dump())});
}

// A tool message of one tool_approval part.
inline nlohmann::json approval_message(const std::string& id, bool approve,
                                       const std::string& reason = "") {
  nlohmann::json part = {{"type", "tool_approval"}, {"tool_call_id", id}, {"approve", approve}};
  if (!reason.empty()) part["reason"] = reason;
  return {{"role", "tool"}, {"content", {part}}};
}

class ServerToolsApi : public ::testing::Test {
 protected:
  // The agent's id; fails the test when it cannot be made.
  std::string make_agent(const nlohmann::json& tools,
                         nlohmann::json extra = nlohmann::json::object()) {
    nlohmann::json body = {{"name", "agent" + std::to_string(++agents_)},
                           {"model", vendor_model(Vendor::openai)},
                           {"tools", tools}};
    body.update(extra);
    auto made = call(s.agentd, "POST", "/agents", s.admin, body);
    EXPECT_EQ(made.status, 201) << made.body;
    return made.json().value("id", "");
  }
  nlohmann::json agent_body(const std::string& agent, const std::string& text,
                            const std::string& session,
                            nlohmann::json extra = nlohmann::json::object()) {
    nlohmann::json body = s.body(text, {{"agent_id", agent}, {"session_id", session}});
    body.update(extra);
    return body;
  }
  HttpResponse chat(const nlohmann::json& body) {
    return call(s.agentd, "POST", "/chat", s.admin, body);
  }

  TempDir dir;
  VendorSetup s{Vendor::openai, server_tools_options(dir)};

 private:
  int agents_ = 0;
};

}  // namespace agentrt::test
