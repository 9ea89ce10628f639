// Who may read GET /metrics (metrics.access): off answers 404 as an unknown route,
// loopback serves clients on agentd's host only, admin asks for an admin token of no
// cell (tests/api/admin_access_test.cpp runs it against every kind of caller too).
#include "tests/api/conversation_client.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

namespace agentrt::test {
namespace {

AgentdOptions metrics_access(const TempDir& dir, const std::string& access,
                             std::vector<std::string> more_args = {}) {
  const nlohmann::json config = {{"metrics", {{"access", access}}}};
  AgentdOptions options = with_args({"--config", dir.write("config.json", config.dump())});
  options.args.insert(options.args.end(), more_args.begin(), more_args.end());
  return options;
}

// An IPv4 address of this host other than loopback; "" when it has none.
std::string non_loopback_address() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return "";
  std::string found;
  for (ifaddrs* at = list; at != nullptr && found.empty(); at = at->ifa_next) {
    if (at->ifa_addr == nullptr || at->ifa_addr->sa_family != AF_INET) continue;
    const in_addr address = reinterpret_cast<const sockaddr_in*>(at->ifa_addr)->sin_addr;
    if ((ntohl(address.s_addr) >> 24) == 127) continue;
    char text[INET_ADDRSTRLEN] = {};
    if (::inet_ntop(AF_INET, &address, text, sizeof text) != nullptr) found = text;
  }
  ::freeifaddrs(list);
  return found;
}

TEST(MetricsAccess, OffAnswersAsAnUnknownRoute) {
  TempDir dir;
  AgentdProcess agentd(metrics_access(dir, "off"));
  const std::string admin = first_admin_token(agentd);
  ASSERT_EQ(call(agentd, "POST", "/chat", admin, run_body("hi")).status, 200);
  for (const std::string& token : {std::string(), admin}) {
    auto response = call(agentd, "GET", "/metrics", token);
    EXPECT_EQ(response.status, 404) << response.body;
    EXPECT_EQ(response.json()["error"]["code"], "not_found");
    EXPECT_EQ(response.json()["error"]["message"], "no route for GET /metrics");
    EXPECT_FALSE(response.json()["error"]["request_id"].get<std::string>().empty());
  }
}

TEST(MetricsAccess, LoopbackServesThisHostWithoutAToken) {
  TempDir dir;
  AgentdProcess agentd(metrics_access(dir, "loopback", {"--listen", "0.0.0.0:0"}));
  auto here = agentd.request("GET", "/metrics");
  EXPECT_EQ(here.status, 200) << here.body;
  EXPECT_NE(here.body.find("\nagentrt_runs_live 0\n"), std::string::npos) << here.body;
  EXPECT_EQ(agentd.request("POST", "/metrics").status, 405);

  const std::string address = non_loopback_address();
  if (address.empty()) GTEST_SKIP() << "this host has no IPv4 address but loopback";
  HttpConnection remote(agentd.port(), address);
  auto refused = remote.request("GET", "/metrics");
  EXPECT_EQ(refused.status, 403) << refused.body;
  EXPECT_EQ(refused.json()["error"]["code"], "forbidden");
  EXPECT_NE(refused.json()["error"]["message"].get<std::string>().find("metrics.access"),
            std::string::npos);
  // A token does not open it to another host: loopback is about where the client is.
  auto with_token = HttpConnection(agentd.port(), address)
                        .request("GET", "/metrics", "", auth_headers(first_admin_token(agentd)));
  EXPECT_EQ(with_token.status, 403);
  EXPECT_EQ(HttpConnection(agentd.port(), address).request("GET", "/health").status, 200);
}

TEST(MetricsAccess, AdminAsksForAnAdminToken) {
  TempDir dir;
  AgentdProcess agentd(metrics_access(dir, "admin"));
  const std::string admin = first_admin_token(agentd);
  const std::string plain = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "ann"}})["token"];
  auto none = agentd.request("GET", "/metrics");
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(none.header("WWW-Authenticate"), "Bearer");
  auto refused = call(agentd, "GET", "/metrics", plain);
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(refused.json()["error"]["code"], "forbidden");
  auto served = call(agentd, "GET", "/metrics", admin);
  EXPECT_EQ(served.status, 200) << served.body;
  EXPECT_NE(served.body.find("agentrt_http_requests_total{"), std::string::npos);
  // The refusals are requests like any other.
  EXPECT_NE(served.body.find(R"(route="/metrics",status="401")"), std::string::npos) << served.body;
}

}  // namespace
}  // namespace agentrt::test
