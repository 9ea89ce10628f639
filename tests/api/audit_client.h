// Helpers for the audit log's API tests: reading GET /admin/audit whole, and the public
// id of a bundled token.
#pragma once

#include "tests/api/admin_client.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace agentrt::test {

// The public id a bundled token carries ("art_" + these 16 hex digits + its secret).
inline std::string token_id_of(const std::string& token) {
  return token.substr(4, 16);
}

// Every entry `query` ("action=cell.&actor=ops") selects, newest first, page by page;
// each page's body is appended to `bodies` when given.
inline std::vector<nlohmann::json> audit_entries(const AgentdProcess& agentd,
                                                 const std::string& admin,
                                                 const std::string& query = "",
                                                 std::string* bodies = nullptr) {
  std::vector<nlohmann::json> entries;
  std::string cursor;
  for (int page = 0; page < 1000; ++page) {
    std::string target = "/admin/audit?limit=500" + (query.empty() ? "" : "&" + query) +
                         (cursor.empty() ? "" : "&cursor=" + cursor);
    HttpResponse response = call(agentd, "GET", target, admin);
    EXPECT_EQ(response.status, 200) << target << ": " << response.body;
    if (response.status != 200) break;
    if (bodies) *bodies += response.body;
    for (const nlohmann::json& entry : response.json()["data"]) entries.push_back(entry);
    const nlohmann::json& next = response.json()["next_cursor"];
    if (!next.is_string()) break;
    cursor = next.get<std::string>();
  }
  return entries;
}

// The entries of admin actions alone (no auth.refused), newest first.
inline std::vector<nlohmann::json> audit_actions(const AgentdProcess& agentd,
                                                 const std::string& admin) {
  std::vector<nlohmann::json> actions;
  for (nlohmann::json& entry : audit_entries(agentd, admin))
    if (entry["action"] != "auth.refused") actions.push_back(std::move(entry));
  return actions;
}

}  // namespace agentrt::test
