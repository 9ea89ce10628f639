// The request pipeline as a client of the real agentd sees it: error bodies, request
// ids, body limits and the access log.
#include "tests/api/admin_client.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <map>
#include <memory>
#include <regex>
#include <set>
#include <vector>

namespace agentrt::test {
namespace {

const std::regex kGeneratedId("^[0-9a-f]{16}$");

void expect_error(const HttpResponse& response, int status, const std::string& code) {
  EXPECT_EQ(response.status, status) << response.body;
  EXPECT_EQ(response.header("Content-Type"), "application/json");
  const nlohmann::json body = response.json();
  ASSERT_TRUE(body.is_object()) << response.body;
  ASSERT_EQ(body.size(), 1u) << response.body;
  const nlohmann::json& error = body["error"];
  ASSERT_TRUE(error.is_object()) << response.body;
  EXPECT_EQ(error.size(), 3u) << response.body;
  EXPECT_EQ(error["code"], code);
  EXPECT_TRUE(error["message"].is_string() && !error["message"].get<std::string>().empty());
  EXPECT_EQ(error["request_id"], response.header("X-Request-Id"));
}

TEST(HttpErrors, UnknownRouteIsNotFoundWithRequestId) {
  AgentdProcess agentd;
  const HttpResponse response = agentd.request("GET", "/no/such/route");
  expect_error(response, 404, "not_found");
  EXPECT_TRUE(std::regex_match(response.header("X-Request-Id"), kGeneratedId));
}

TEST(HttpErrors, TrailingSlashIsNotFound) {
  AgentdProcess agentd;
  expect_error(agentd.request("GET", "/health/"), 404, "not_found");
  expect_error(agentd.request("GET", "//health"), 404, "not_found");
}

TEST(HttpErrors, WrongMethodIsMethodNotAllowedWithAllow) {
  AgentdProcess agentd;
  const HttpResponse response = agentd.request("DELETE", "/health");
  expect_error(response, 405, "method_not_allowed");
  EXPECT_EQ(response.header("Allow"), "GET");
}

TEST(HttpErrors, MalformedPercentEscapeIsInvalidRequest) {
  AgentdProcess agentd;
  expect_error(agentd.request("GET", "/he%zzlth"), 400, "invalid_request");
}

TEST(HttpErrors, ClientRequestIdIsEchoedWhenValid) {
  AgentdProcess agentd;
  const std::string id = "client-Id_1.2";
  EXPECT_EQ(agentd.request("GET", "/health", {}, {{"X-Request-Id", id}}).header("X-Request-Id"),
            id);
  const HttpResponse missing = agentd.request("GET", "/nope", {}, {{"X-Request-Id", id}});
  expect_error(missing, 404, "not_found");
  EXPECT_EQ(missing.json()["error"]["request_id"], id);

  for (const std::string& bad :
       {std::string("has space"), std::string(65, 'a'), std::string("semi;colon")}) {
    const std::string chosen =
        agentd.request("GET", "/health", {}, {{"X-Request-Id", bad}}).header("X-Request-Id");
    EXPECT_TRUE(std::regex_match(chosen, kGeneratedId)) << bad << " -> " << chosen;
  }
}

TEST(HttpErrors, OversizedContentLengthIsRefusedAndTheConnectionCloses) {
  AgentdProcess agentd;  // default limit: 1 MiB
  HttpConnection connection = agentd.connect();
  // Announces one byte over the limit and sends none of it: the server must answer
  // from the header alone instead of waiting for (or reading) the body.
  connection.send_raw("POST /health HTTP/1.1\r\nHost: x\r\nContent-Length: 1048577\r\n\r\n");
  const HttpResponse response = connection.read_response();
  expect_error(response, 413, "payload_too_large");
  EXPECT_TRUE(response.closes_connection());
  EXPECT_TRUE(connection.closed_by_server());
}

TEST(HttpErrors, ExpectContinueIsNotInvitedForAnOversizedBody) {
  AgentdProcess agentd;
  HttpConnection connection = agentd.connect();
  connection.send_raw(
      "POST /health HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\n"
      "Expect: 100-continue\r\n\r\n");
  // read_response skips a 100; check the raw bytes instead.
  char bytes[12] = {};
  ASSERT_EQ(connection.socket().receiveBytes(bytes, 12, MSG_PEEK), 12);
  EXPECT_EQ(std::string(bytes, 12), "HTTP/1.1 413");
  expect_error(connection.read_response(), 413, "payload_too_large");
}

TEST(HttpErrors, OversizedChunkedBodyIsRefusedAndTheConnectionCloses) {
  TempDir dir;
  const std::string config = dir.write("c.json", R"({"limits":{"max_body_bytes":1024}})");
  AgentdProcess agentd(with_args({"--config", config}));
  HttpConnection connection = agentd.connect();
  // Far more than socket buffers hold: the client is still sending when the server
  // answers, and must still get to read the answer.
  const HttpResponse response =
      connection.request_chunked("POST", "/health", std::string(4 << 20, 'x'), 64 * 1024);
  expect_error(response, 413, "payload_too_large");
  EXPECT_TRUE(response.closes_connection());
  EXPECT_TRUE(connection.closed_by_server());

  // Within the limit the same request reaches routing (GET-only path: 405).
  expect_error(agentd.connect().request_chunked("POST", "/health", std::string(1024, 'x'), 100),
               405, "method_not_allowed");
}

// A client that sends a byte now and then, each within the receive timeout, once held
// its connection's thread for ever (slowloris): the request must arrive whole, head and
// body, within server.request_timeout_s, whatever the pace. The bytes come every 400
// ms, against a receive timeout of 30 s and a request timeout of 2 s.
TEST(HttpErrors, ARequestDrippedAByteAtATimeIsCutAtTheRequestTimeout) {
  TempDir dir;
  const std::string config = dir.write("c.json", R"({"server":{"request_timeout_s":2}})");
  AgentdProcess agentd(with_args({"--config", config}));
  const auto drip = [](HttpConnection& connection, const std::string& bytes) {
    const auto start = std::chrono::steady_clock::now();
    for (char c : bytes) {
      try {
        connection.send_raw(std::string(1, c));
      } catch (const std::exception&) {
        break;  // the server closed the connection
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(400));
      if (std::chrono::steady_clock::now() - start > std::chrono::seconds(8)) break;
    }
    return std::chrono::steady_clock::now() - start;
  };
  {  // a head that never ends
    HttpConnection connection = agentd.connect();
    const auto took =
        drip(connection, "GET /health HTTP/1.1\r\nHost: h\r\nX-Slow: abcdefghijklmnopqrstuvwxyz");
    EXPECT_LT(took, std::chrono::seconds(5)) << "the connection stayed open";
    const HttpResponse response = connection.read_response();
    expect_error(response, 400, "invalid_request");
    EXPECT_NE(response.body.find("request_timeout_s"), std::string::npos) << response.body;
    EXPECT_TRUE(connection.closed_by_server());
  }
  {  // a body that comes a byte at a time: 400, and the connection closes
    HttpConnection connection = agentd.connect();
    connection.send_raw(
        "POST /health HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: "
        "40\r\n\r\n");
    drip(connection, std::string(40, ' ').substr(0, 12));
    const HttpResponse response = connection.read_response();
    expect_error(response, 400, "invalid_request");
    EXPECT_NE(response.body.find("timed out reading the request body"), std::string::npos)
        << response.body;
    EXPECT_TRUE(connection.closed_by_server());
  }
  // At a normal pace nothing changes.
  EXPECT_EQ(agentd.connect().request("GET", "/health").status, 200);
}

// A new connection that sends nothing must not hold a thread for the receive timeout
// (30 s): one client with a few thousand silent connections would take every thread. The
// kernel holds such a connection until its first bytes come (TCP_DEFER_ACCEPT) or the
// keep-alive time has passed; then agentd closes it after a short grace. One that sends
// within that time is served as ever.
TEST(HttpErrors, ASilentNewConnectionHoldsNothingAndIsClosed) {
  TempDir dir;
  const std::string config = dir.write("c.json", R"({"server":{"keep_alive_timeout_s":1}})");
  AgentdProcess agentd(with_args({"--config", config}));
  ASSERT_EQ(agentd.request("GET", "/health").status, 200);
  const size_t before = agentd.open_descriptors();
  const auto opened = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<HttpConnection>> silent;
  for (int i = 0; i < 30; ++i) silent.push_back(std::make_unique<HttpConnection>(agentd.port()));
  HttpConnection late = agentd.connect();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_LT(agentd.open_descriptors(), before + 5) << "the silent connections were accepted";
  EXPECT_EQ(late.request("GET", "/health").status, 200);
  // The kernel's 1 s, then the grace: nowhere near the receive timeout (30 s).
  const auto deadline = opened + std::chrono::seconds(8);
  size_t closed = 0;
  for (auto& connection : silent) {
    const auto left = std::max(std::chrono::steady_clock::duration::zero(),
                               deadline - std::chrono::steady_clock::now());
    closed +=
        connection->closed_by_server(std::chrono::duration_cast<std::chrono::milliseconds>(left));
  }
  EXPECT_EQ(closed, silent.size());
  EXPECT_EQ(agentd.request("GET", "/health").status, 200);
}

TEST(HttpErrors, KeepAliveConnectionServesSeveralRequests) {
  AgentdProcess agentd;
  HttpConnection connection = agentd.connect();
  EXPECT_EQ(connection.request("GET", "/health").status, 200);
  // A refused request with a body: the body is still consumed, the connection stays.
  const HttpResponse refused = connection.request("POST", "/health", std::string(5000, 'x'));
  EXPECT_EQ(refused.status, 405);
  EXPECT_FALSE(refused.closes_connection());
  EXPECT_EQ(connection.request("GET", "/nope").status, 404);
  EXPECT_EQ(connection.request("GET", "/health").status, 200);
}

// A token pasted where an id belongs (a path segment) must not reach the access log
// whole: such a segment is logged as its prefix; ids stay as they are.
TEST(HttpErrors, ATokenInThePathIsNotLogged) {
  AgentdProcess agentd;
  const std::string token = first_admin_token(agentd);
  const std::string id = token.substr(0, 20);
  agentd.request("GET", "/sessions/" + token + "/messages", {}, {{"X-Request-Id", "pasted"}});
  agentd.request("GET", "/sessions/" + id, {}, {{"X-Request-Id", "an-id"}});
  ASSERT_EQ(agentd.stop(SIGTERM), 0);
  std::map<std::string, nlohmann::json> requests;
  for (const nlohmann::json& line : agentd.log_lines())
    if (line.value("msg", "") == "request") requests[line.value("request_id", "")] = line;
  EXPECT_EQ(requests["pasted"]["path"], "/sessions/art_[redacted]/messages");
  EXPECT_EQ(requests["an-id"]["path"], "/sessions/" + id);
  const std::string log = agentd.stderr_text();
  const size_t banner = log.find(token);  // the first start's, on stderr by design
  EXPECT_EQ(log.find(token, banner + 1), std::string::npos) << "the token was logged";
}

// Nor echoed: error messages name the path or id the request gave.
TEST(HttpErrors, ATokenInThePathIsNotEchoed) {
  AgentdProcess agentd;
  const std::string token = first_admin_token(agentd);
  for (const auto& [method, path] :
       std::vector<std::pair<std::string, std::string>>{{"GET", "/nope/" + token},
                                                        {"GET", "/admin/tokens/" + token},
                                                        {"GET", "/sessions/" + token}}) {
    const HttpResponse response =
        agentd.request(method, path, {}, {{"Authorization", "Bearer " + token}});
    EXPECT_GE(response.status, 400) << path;
    EXPECT_EQ(response.body.find(token.substr(20)), std::string::npos) << response.body;
    EXPECT_NE(response.body.find("art_[redacted]"), std::string::npos) << response.body;
  }
}

// One request, one credential: a proxy that checks the last of two Authorization fields
// while agentd takes the first would let one caller act as another.
TEST(HttpErrors, TwoAuthorizationFieldsAreRefused) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  HttpConnection connection = agentd.connect();
  connection.send_raw("GET /admin/tokens HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + admin +
                      "\r\nAuthorization: Bearer art_other\r\n\r\n");
  const HttpResponse response = connection.read_response();
  expect_error(response, 400, "invalid_request");  // "malformed HTTP request", as any such head
  EXPECT_EQ(
      agentd.request("GET", "/admin/tokens", {}, {{"Authorization", "Bearer " + admin}}).status,
      200);
}

TEST(HttpErrors, AccessLogHasOneJsonLinePerRequestAndNoHeaders) {
  AgentdProcess agentd;
  const HttpResponse ok =
      agentd.request("GET", "/health?verbose=1", {},
                     {{"Authorization", "Bearer art_notlogged"}, {"X-Request-Id", "log-check-1"}});
  EXPECT_EQ(ok.status, 400);  // /health takes no query parameter; the log shows no query
  const HttpResponse missing = agentd.request("POST", "/missing", "{\"secret\":\"bodynotlogged\"}",
                                              {{"Content-Type", "application/json"}});
  // A token pasted as the request id is not taken as one (it went to the log whole).
  const std::string pasted = "art_0123456789abcdef_" + std::string(40, 'P');
  const HttpResponse as_id = agentd.request("GET", "/health", {}, {{"X-Request-Id", pasted}});
  EXPECT_EQ(as_id.status, 200);
  EXPECT_EQ(as_id.header("X-Request-Id").size(), 16u) << as_id.header("X-Request-Id");
  ASSERT_EQ(agentd.stop(SIGTERM), 0);

  // Keyed by request id: each line is written after its response went out, so the
  // order of two requests is not fixed.
  std::map<std::string, nlohmann::json> requests;
  for (const nlohmann::json& line : agentd.log_lines()) {
    if (line.value("msg", "") == "request") requests[line.value("request_id", "")] = line;
  }
  ASSERT_EQ(requests.size(), 3u) << agentd.stderr_text();
  const nlohmann::json& first = requests["log-check-1"];
  EXPECT_EQ(first["method"], "GET");
  EXPECT_EQ(first["path"], "/health");
  EXPECT_EQ(first["status"], 400);
  const nlohmann::json& second = requests[missing.header("X-Request-Id")];
  EXPECT_EQ(second["method"], "POST");
  EXPECT_EQ(second["path"], "/missing");
  EXPECT_EQ(second["status"], 404);
  for (const auto& [id, line] : requests) {
    EXPECT_EQ(line["level"], "info") << id;
    EXPECT_TRUE(line["duration_ms"].is_number()) << id;
    EXPECT_GE(line["duration_ms"].get<double>(), 0.0) << id;
  }
  const std::string log = agentd.stderr_text();
  EXPECT_EQ(log.find("art_notlogged"), std::string::npos);
  EXPECT_EQ(log.find("bodynotlogged"), std::string::npos);
  EXPECT_EQ(log.find("verbose=1"), std::string::npos);
  EXPECT_EQ(log.find("PPPPPPPP"), std::string::npos);
}

}  // namespace
}  // namespace agentrt::test
