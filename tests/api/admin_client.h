// Helpers for API tests that need tokens: the first admin token of a running agentd,
// and authenticated JSON calls.
#pragma once

#include "tests/api/agentd_process.h"
#include "tests/api/secret_watch.h"

#include <fstream>
#include <regex>
#include <string>

namespace agentrt::test {

// The first admin token: from <data_dir>/admin.token when agentd wrote one, else from
// the one-time banner on stderr.
inline std::string first_admin_token(const AgentdProcess& agentd) {
  std::ifstream file(agentd.data_dir() + "/admin.token");
  std::string token;
  std::smatch match;
  std::string err = agentd.stderr_text();
  if (!(file >> token) &&
      std::regex_search(err, match, std::regex("art_[0-9a-f]{16}[A-Za-z0-9_-]{43}")))
    token = match.str();
  remember_secret(token);
  return token;
}

inline Headers auth_headers(const std::string& token) {
  Headers headers = {{"Content-Type", "application/json"}};
  if (!token.empty()) headers.push_back({"Authorization", "Bearer " + token});
  return headers;
}

inline HttpResponse call(const AgentdProcess& agentd, const std::string& method,
                         const std::string& path, const std::string& token,
                         const nlohmann::json& body = nullptr) {
  return agentd.request(method, path, body.is_null() ? std::string() : body.dump(),
                        auth_headers(token));
}

// Issues a token with the admin token; returns the whole 201 body.
inline nlohmann::json issue_token(const AgentdProcess& agentd, const std::string& admin,
                                  nlohmann::json body) {
  auto response = call(agentd, "POST", "/admin/tokens", admin, body);
  if (response.status != 201) throw std::runtime_error("issue failed: " + response.body);
  return response.json();
}

}  // namespace agentrt::test
