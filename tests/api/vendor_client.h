// agentd wired to a fake vendor upstream through a shared provider, for the API tests
// of the provider plugins as agentd uses them.
#pragma once

#include "tests/api/conversation_client.h"
#include "tests/fakes/fake_upstream.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentrt::test {

inline std::string vendor_key(Vendor vendor) {
  return std::string("sk-test-") + vendor_name(vendor) + "-7f3a9c1e5b2d";
}

inline std::string vendor_model(Vendor vendor) {
  return std::string(vendor_name(vendor)) + "-model";
}

class VendorSetup {
 public:
  explicit VendorSetup(Vendor vendor, AgentdOptions options = {}, int64_t context_window = 4096,
                       int stall_timeout_ms = 500)
      : fake(vendor), agentd(std::move(options)) {
    fake.require_key(vendor_key(vendor));
    admin = first_admin_token(agentd);
    nlohmann::json provider = {
        {"name", vendor_name(vendor)},
        {"type", vendor_name(vendor)},
        {"base_url", fake.base_url()},
        {"api_key_ref", {{"source", "inline"}, {"value", vendor_key(vendor)}}},
        {"options", {{"stall_timeout_ms", stall_timeout_ms}, {"connect_timeout_ms", 1000}}},
        {"models",
         {{{"id", vendor_model(vendor)},
           {"context_window", context_window},
           {"supports_vision", true}}}}};
    auto saved =
        call(agentd, "POST", "/admin/shared-providers", admin, {{"providers", {provider}}});
    if (saved.status != 200) throw std::runtime_error("provider setup failed: " + saved.body);
  }

  nlohmann::json body(const std::string& text, nlohmann::json extra = nlohmann::json::object()) {
    nlohmann::json b = run_body(text, std::move(extra));
    if (!b.contains("model") || b["model"] == "echo") b["model"] = vendor_model(fake.vendor());
    return b;
  }

  FakeUpstream fake;
  AgentdProcess agentd;
  std::string admin;
};

// A /run stream as the admin, its status checked, to its end.
inline std::vector<nlohmann::json> run_events(VendorSetup& s, const nlohmann::json& body) {
  auto stream = open_run(s.agentd, s.admin, body);
  EXPECT_EQ(stream->status(), 200) << stream->error_body();
  return stream->rest();
}

// The session's stored messages (the first page).
inline nlohmann::json session_messages(VendorSetup& s, const std::string& session) {
  return call(s.agentd, "GET", "/sessions/" + session + "/messages", s.admin).json()["data"];
}

}  // namespace agentrt::test
