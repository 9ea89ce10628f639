// Input that is valid HTTP and valid JSON, or nearly, but that a route could answer with
// a 500 or read two ways: numbers past a double, bytes that are not UTF-8, keys written
// twice, nulls, and streams to HTTP/1.0 clients.
#include "tests/api/conversation_client.h"

#include <gtest/gtest.h>

namespace agentrt::test {
namespace {

using nlohmann::json;

class RequestInput : public ::testing::Test {
 protected:
  void SetUp() override { admin = first_admin_token(agentd); }

  HttpResponse post(const std::string& path, const std::string& body) const {
    return agentd.request("POST", path, body, auth_headers(admin));
  }
  void expect_invalid(const HttpResponse& response, const std::string& says,
                      const std::string& what) const {
    EXPECT_EQ(response.status, 400) << what << ": " << response.body;
    EXPECT_EQ(response.json()["error"]["code"], "invalid_request") << what;
    EXPECT_NE(response.json()["error"]["message"].get<std::string>().find(says), std::string::npos)
        << what << ": " << response.body;
  }

  AgentdProcess agentd;
  std::string admin;
};

// nlohmann reports `1e400` as out_of_range, not as a parse error, and every JSON route
// answered it with a 500 and an error-level log line.
TEST_F(RequestInput, ANumberPastADoubleIs400OnEveryJsonRoute) {
  const std::vector<std::pair<std::string, std::string>> bodies = {
      {"/chat",
       R"({"model":"echo","messages":[{"role":"user","content":"x"}],"temperature":1e400})"},
      {"/run",
       R"({"model":"echo","messages":[{"role":"user","content":"x"}],"max_tokens":-1e400})"},
      {"/memory", R"({"layer":"working","content":"x","metadata":{"n":1e400}})"},
      {"/memory/search", R"({"query":"x","limit":1e400})"},
      {"/agents", R"({"name":"a","model":"echo","x":1e400})"},
      {"/admin/tokens", R"({"ttl":"1h","actor":"a","admin":1e400})"}};
  for (const auto& [path, body] : bodies)
    expect_invalid(post(path, body), "number too large", path);
  for (const json& line : agentd.log_lines())
    EXPECT_NE(line.value("level", ""), "error") << line.dump();
}

// A whole number too large for a field is an integer still, and the message says so, not
// "must be an integer".
TEST_F(RequestInput, AnIntegerPastItsRangeIsCalledOne) {
  auto chat = [this](const std::string& max_tokens) {
    return post("/chat", R"({"model":"echo","messages":[{"role":"user","content":)"
                         R"([{"type":"text","text":"x"}]}],"max_tokens":)" +
                             max_tokens + "}");
  };
  for (const std::string n : {"99999999999999999999999", "18446744073709551615"})
    expect_invalid(chat(n), "field 'max_tokens' is an integer out of range", n);
  expect_invalid(chat("0"), "must be an integer from 1 to 10000000", "0");
}

// Bytes that are not UTF-8 reached the plugins' JSON, whose writer threw: 500.
TEST_F(RequestInput, BytesThatAreNotUtf8AreRefusedNotFailedOn) {
  for (const std::string& token :
       std::vector<std::string>{"art_\xe9", "art_" + std::string(59, '\xc3'), "a b", "a\"b"}) {
    const HttpResponse response = agentd.request("GET", "/sessions", "", auth_headers(token));
    EXPECT_EQ(response.status, 401) << response.body;
    EXPECT_EQ(response.header("WWW-Authenticate"), "Bearer");
    EXPECT_EQ(response.json()["error"]["message"], "the bearer token is malformed");
  }
  // RFC 6750's b64token, '=' padding included, is a token to ask the plugin about (its
  // own words, not the host's).
  EXPECT_EQ(agentd.request("GET", "/sessions", "", auth_headers("art_x+/.~-=="))
                .json()["error"]["message"],
            "malformed token");
  for (const std::string path : {"/memory/%C3", "/admin/tokens/%FF", "/agents/%FF"}) {
    const std::string method = path.rfind("/admin", 0) == 0 ? "DELETE" : "GET";
    expect_invalid(agentd.request(method, path, "", auth_headers(admin)), "not UTF-8", path);
  }
  for (const std::string path : {"/memory?layer=about_me&actor=%FF", "/memory/counts?namespace=%FF",
                                 "/admin/tokens?cursor=%FF", "/memory?layer=about_me&%FF=1"})
    expect_invalid(agentd.request("GET", path, "", auth_headers(admin)), "not UTF-8", path);
  for (const json& line : agentd.log_lines())
    EXPECT_NE(line.value("level", ""), "error") << line.dump();
}

// A reader that checks the first of two equal keys sees another request than the one
// served, which took the last.
TEST_F(RequestInput, AKeyWrittenTwiceIsRefusedNamingIt) {
  expect_invalid(post("/admin/tokens", R"({"ttl":"1h","actor":"a","admin":true,"admin":false})"),
                 "field 'admin' appears twice", "token");
  expect_invalid(post("/memory", R"({"layer":"working","content":"x","metadata":{"a":1,"a":2}})"),
                 "field 'metadata.a' appears twice", "memory");
  // The body /run reads by its own scanner falls back to the general reader for this.
  expect_invalid(post("/chat", R"({"model":"echo","session_id":"dup-a","session_id":"dup-b",)"
                               R"("messages":[{"role":"user","content":"x"}]})"),
                 "field 'session_id' appears twice", "chat");
  // Named as every other error names a field, with the indices of its arrays.
  expect_invalid(post("/chat", R"({"model":"echo","messages":[{"role":"user","content":"x"},)"
                               R"({"role":"user","content":[{"type":"text","text":"a"},)"
                               R"({"type":"text","text":"b","text":"c"}]}]})"),
                 "field 'messages[1].content[1].text' appears twice", "chat, in an array");
  expect_invalid(post("/memory", R"({"layer":"working","content":"x","metadata":)"
                                 R"({"l":[[0,{"k":1}],{"k":1,"k":2}]}})"),
                 "field 'metadata.l[1].k' appears twice", "memory, in nested arrays");
  EXPECT_EQ(agentd.request("GET", "/sessions", "", auth_headers(admin)).json()["data"].size(), 0u);
  // Equal keys in different objects are no repetition.
  EXPECT_EQ(post("/memory", R"({"layer":"working","content":"x","metadata":{"a":{"a":1}}})").status,
            201);
}

TEST_F(RequestInput, ATokensAdminFlagMayNotBeNull) {
  expect_invalid(post("/admin/tokens", R"({"ttl":"1h","actor":"a","admin":null})"), "'admin'",
                 "admin null");
  EXPECT_EQ(post("/admin/tokens", R"({"ttl":"1h","actor":"a","cell":null})").status, 201);
}

// A run request's optional fields sent as null read as left out (docs/openapi.yaml,
// RunRequest); `messages` is required and may not be null; `model` null is as absent.
TEST_F(RequestInput, ARunRequestsOptionalFieldSentAsNullIsLeftOut) {
  const std::string messages =
      R"("messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}])";
  const HttpResponse nulls = post("/chat", R"({"model":"echo","session_id":null,"actor":null,)"
                                           R"("agent_id":null,"max_tokens":null,"memory":null,)"
                                           R"("if_busy":null,"temperature":null,)" +
                                               messages + "}");
  EXPECT_EQ(nulls.status, 200) << nulls.body;
  EXPECT_EQ(nulls.json()["reason"], "end_turn") << nulls.body;
  expect_invalid(post("/chat", R"({"model":null,)" + messages + "}"), "'model'", "model null");
  expect_invalid(post("/chat", R"({"model":"echo","messages":null})"), "'messages'",
                 "messages null");
}

// The core allowed 3660d and the plugin 3650d, and refused what lay between with a
// message about `ttl_s`, a field the client never sent.
TEST_F(RequestInput, EveryTtlUpTo3660DaysIsIssued) {
  for (const std::string ttl : {"3651d", "3660d", "87840h"}) {
    const HttpResponse issued = post("/admin/tokens", R"({"actor":"a","ttl":")" + ttl + "\"}");
    EXPECT_EQ(issued.status, 201) << ttl << ": " << issued.body;
  }
  expect_invalid(post("/admin/tokens", R"({"actor":"a","ttl":"3661d"})"), "field 'ttl'", "3661d");
}

// The limits say characters (and JSON Schema's maxLength counts them): in bytes, a name
// in Chinese would be refused at a third of its length.
TEST_F(RequestInput, LengthLimitsCountCharactersNotBytes) {
  auto times = [](const std::string& character, int n) {
    std::string text;
    for (int i = 0; i < n; ++i) text += character;
    return text;
  };
  const std::string e_acute = "\xc3\xa9", sun = "\xe6\x97\xa5";
  EXPECT_EQ(
      post("/admin/tokens", json{{"ttl", "1h"}, {"actor", times(e_acute, 256)}}.dump()).status,
      201);
  expect_invalid(post("/admin/tokens", json{{"ttl", "1h"}, {"actor", times(e_acute, 257)}}.dump()),
                 "1 to 256 characters", "actor");
  EXPECT_EQ(post("/agents", json{{"name", times(sun, 128)}, {"namespace", times(sun, 128)}}.dump())
                .status,
            201);
  expect_invalid(post("/agents", json{{"name", times(sun, 129)}}.dump()), "1 to 128 characters",
                 "agent name");
  EXPECT_EQ(
      post("/memory",
           json{{"layer", "working"}, {"content", "x"}, {"namespace", times(sun, 128)}}.dump())
          .status,
      201);
}

// A token's value begins with its id, so sending it where the id belongs is an easy
// slip: it named no token (404) and its whole secret went to the access log.
TEST_F(RequestInput, ATokenSentWhereItsIdBelongsStaysOutOfTheLog) {
  const json issued = post("/admin/tokens", R"({"ttl":"1h","actor":"a"})").json();
  const std::string token = issued["token"], id = issued["id"];
  EXPECT_EQ(agentd.request("DELETE", "/admin/tokens/" + token, "", auth_headers(admin)).status,
            404);
  EXPECT_EQ(agentd.request("DELETE", "/admin/tokens/" + id, "", auth_headers(admin)).status, 204);
  ASSERT_TRUE(agentd.wait_for_log([&](const json& line) {
    return line.value("path", "") == "/admin/tokens/" + id;  // a revoked id is logged
  }));
  EXPECT_EQ(agentd.stderr_text().find(token.substr(20)), std::string::npos);
  EXPECT_TRUE(agentd.wait_for_log([](const json& line) {
    return line.value("path", "") == "/admin/tokens/{id}" && line.value("status", 0) == 404;
  }));
}

// RFC 9112 6.1: no Transfer-Encoding to an HTTP/1.0 request. The events are the body as
// they are, and the close ends it.
TEST_F(RequestInput, AStreamToHttp10IsUnframedAndEndsWithTheConnection) {
  const std::string body = run_body("one two three").dump();
  HttpConnection connection = agentd.connect();
  connection.send_raw("POST /run HTTP/1.0\r\nAuthorization: Bearer " + admin +
                      "\r\nContent-Type: application/json\r\nContent-Length: " +
                      std::to_string(body.size()) + "\r\n\r\n" + body);
  // Everything up to the close: the close is what ends the body.
  std::string bytes;
  connection.socket().setReceiveTimeout(Poco::Timespan(10, 0));
  char buffer[4096];
  for (int n; (n = connection.socket().receiveBytes(buffer, sizeof buffer)) > 0;)
    bytes.append(buffer, static_cast<size_t>(n));
  const size_t head_end = bytes.find("\r\n\r\n");
  ASSERT_NE(head_end, std::string::npos) << bytes;
  const std::string head = bytes.substr(0, head_end), events = bytes.substr(head_end + 4);
  EXPECT_EQ(head.rfind("HTTP/1.0 200", 0), 0u) << head;
  EXPECT_EQ(head.find("Transfer-Encoding"), std::string::npos) << head;
  EXPECT_EQ(events.rfind("data: {", 0), 0u) << events;
  const size_t done = events.find("\"type\":\"done\"");
  ASSERT_NE(done, std::string::npos) << events;
  EXPECT_EQ(events.substr(events.find('\n', done)), "\n\n") << "the done event ends the body";
}

}  // namespace
}  // namespace agentrt::test
