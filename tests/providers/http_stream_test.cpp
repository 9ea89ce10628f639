// The upstream transport (plugins/common/http_stream.h), through post_streaming as the
// blocking path calls it, against an upstream that answers with scripted bytes:
// framings, connection reuse, idle closes, failures, proxies, and the request it sends.
#include "common/http_stream.h"
#include "tests/providers/scripted_upstream.h"

#include <gtest/gtest.h>
#include <agentrt/plugin.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

namespace agentrt::test {
namespace {

using namespace std::chrono_literals;
using providers::HttpRequest;
using providers::HttpResponse;
using providers::StreamCallbacks;
using Then = ScriptedAnswer::Then;

struct Call {
  HttpResponse response;
  std::string body;  // the 2xx body as on_body saw it
  std::optional<sdk::Error> error;
};

HttpRequest request_to(const std::string& url, std::string body = R"({"model":"m"})") {
  HttpRequest request;
  request.url = url;
  request.headers = {"Content-Type: application/json", "Authorization: Bearer sk-test"};
  request.body = std::move(body);
  request.user_agent = "agentrt-test/1.0";
  request.connect_timeout_ms = 1000;
  request.stall_timeout_ms = 1000;
  return request;
}

Call call(const HttpRequest& request) {
  Call out;
  StreamCallbacks callbacks;
  callbacks.on_body = [&](std::string_view bytes) { out.body.append(bytes); };
  try {
    out.response = providers::post_streaming(request, callbacks);
  } catch (const sdk::Error& e) {
    out.error = e;
  }
  return out;
}

class HttpStream : public ::testing::Test {
 protected:
  void SetUp() override {
    // These tests are about a direct connection, whatever the run's environment says.
    for (const char* name : {"http_proxy", "all_proxy", "ALL_PROXY"}) ::unsetenv(name);
  }
  ScriptedUpstream upstream;
};

TEST_F(HttpStream, SendsTheRequestAndReusesTheConnection) {
  upstream.enqueue({"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst"});
  upstream.enqueue(
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nsecond\r\n0\r\n\r\n"});
  Call first = call(request_to(upstream.url("/v1/chat?x=1#frag")));
  Call second = call(request_to(upstream.url()));
  ASSERT_FALSE(first.error) << first.error->what();
  ASSERT_FALSE(second.error) << second.error->what();
  EXPECT_EQ(first.body, "first");
  EXPECT_EQ(second.body, "second");
  EXPECT_EQ(first.response.status, 200);
  EXPECT_EQ(upstream.connections(), 1u);
  const std::string head = upstream.requests().at(0);
  const std::string port = std::to_string(upstream.port());
  EXPECT_EQ(head.rfind("POST /v1/chat?x=1 HTTP/1.1\r\n", 0), 0u) << head;
  for (const std::string& field :
       {"\r\nHost: 127.0.0.1:" + port + "\r\n", std::string("\r\nUser-Agent: agentrt-test/1.0\r\n"),
        std::string("\r\nAccept: */*\r\n"), std::string("\r\nContent-Length: 13\r\n"),
        std::string("\r\nAuthorization: Bearer sk-test\r\n")})
    EXPECT_NE(head.find(field), std::string::npos) << field << " in " << head;
  EXPECT_EQ(head.substr(head.size() - 17), "\r\n\r\n{\"model\":\"m\"}");
}

TEST_F(HttpStream, AnAnswerFramedByTheCloseOrInHttp10IsNotReused) {
  upstream.enqueue({"HTTP/1.1 200 OK\r\n\r\nto the end", Then::close});
  upstream.enqueue({"HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nold"});
  EXPECT_EQ(call(request_to(upstream.url())).body, "to the end");
  EXPECT_EQ(call(request_to(upstream.url())).body, "old");
  EXPECT_EQ(call(request_to(upstream.url())).body, "ok");
  EXPECT_EQ(upstream.connections(), 3u);
}

TEST_F(HttpStream, AnIdleConnectionTheUpstreamClosedIsRetriedOnANewOne) {
  upstream.enqueue({"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi", Then::close});
  ASSERT_EQ(call(request_to(upstream.url())).body, "hi");
  std::this_thread::sleep_for(50ms);  // the close reaches us while the connection idles
  Call again = call(request_to(upstream.url()));
  ASSERT_FALSE(again.error) << again.error->what();
  EXPECT_EQ(again.body, "ok");
  EXPECT_EQ(upstream.connections(), 2u);
  EXPECT_EQ(upstream.requests().size(), 2u);
}

TEST_F(HttpStream, ANewConnectionClosedBeforeAnyAnswerIsUnavailableAndNotRetried) {
  upstream.enqueue({"", Then::close});
  Call out = call(request_to(upstream.url()));
  ASSERT_TRUE(out.error);
  EXPECT_EQ(out.error->code(), AGENTRT_ERR_UNAVAILABLE) << out.error->what();
  EXPECT_EQ(upstream.requests().size(), 1u);
}

TEST_F(HttpStream, AResetMidBodyIsUpstreamWithTheStatusAfterThePartialBody) {
  upstream.enqueue({"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial", Then::reset});
  Call out = call(request_to(upstream.url()));
  ASSERT_TRUE(out.error);
  EXPECT_EQ(out.error->code(), AGENTRT_ERR_UPSTREAM) << out.error->what();
  EXPECT_EQ(out.error->http_status(), 200);
  EXPECT_EQ(out.body, "partial");
}

TEST_F(HttpStream, AMalformedAnswerIsUnavailable) {
  upstream.enqueue({"SPDY/3 200 OK\r\n\r\n", Then::close});
  Call out = call(request_to(upstream.url()));
  ASSERT_TRUE(out.error);
  EXPECT_EQ(out.error->code(), AGENTRT_ERR_UNAVAILABLE) << out.error->what();
}

TEST_F(HttpStream, AnErrorAnswerIsReturnedWithItsHeadersAndBody) {
  upstream.enqueue(
      {"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 3\r\nContent-Length: 4\r\n\r\nbusy"});
  Call out = call(request_to(upstream.url()));
  ASSERT_FALSE(out.error) << out.error->what();
  EXPECT_EQ(out.response.status, 503);
  EXPECT_EQ(out.response.header("retry-after"), "3");
  EXPECT_EQ(out.response.body, "busy");
  EXPECT_EQ(out.body, "");  // never handed on as stream bytes
}

// The error mapping reads the final answer's fields (libcurl's store of them): an
// interim answer's are not among them, and a repeated field's values are joined.
TEST_F(HttpStream, AnErrorAnswerKeepsOnlyTheFinalFieldsAndJoinsRepeatedOnes) {
  upstream.enqueue(
      {"HTTP/1.1 100 Continue\r\nX-Interim: 1\r\n\r\n"
       "HTTP/1.1 429 Too Many Requests\r\nX-Twice: a\r\nRetry-After: 3\r\n"
       "x-twice:  b \r\nContent-Length: 4\r\n\r\nslow"});
  Call out = call(request_to(upstream.url()));
  ASSERT_FALSE(out.error) << out.error->what();
  EXPECT_EQ(out.response.status, 429);
  EXPECT_EQ(out.response.header("retry-after"), "3");
  EXPECT_EQ(out.response.header("x-twice"), "a, b");
  EXPECT_EQ(out.response.header("x-interim"), "");
  EXPECT_EQ(out.response.body, "slow");
}

TEST_F(HttpStream, AHeaderWithALineBreakIsRefusedBeforeAnythingIsSent) {
  for (const char* line_break : {"\r\n", "\n", "\r"}) {
    HttpRequest request = request_to(upstream.url());
    request.headers.push_back(std::string("Authorization: Bearer x") + line_break +
                              "X-Injected: 1");
    Call out = call(request);
    ASSERT_TRUE(out.error) << line_break;
    EXPECT_EQ(out.error->code(), AGENTRT_ERR_INVALID_ARGUMENT);
  }
  EXPECT_EQ(upstream.connections(), 0u);
}

TEST_F(HttpStream, ALargeBodyGoesOutWhole) {
  const std::string big = "{\"data\":\"" + std::string(4 * 1024 * 1024, 'x') + "\"}";
  Call out = call(request_to(upstream.url(), big));
  ASSERT_FALSE(out.error) << out.error->what();
  const std::string received = upstream.requests().at(0);
  EXPECT_EQ(received.substr(received.size() - big.size()), big);
}

TEST_F(HttpStream, AnswersLongerThanOneReadArriveWhole) {
  std::string big;
  for (int i = 0; big.size() < 200 * 1024; ++i) big += "data: " + std::to_string(i) + "\n\n";
  std::string chunked;
  for (size_t at = 0; at < big.size(); at += 5000) {
    std::string piece = big.substr(at, 5000);
    char size[16];
    std::snprintf(size, sizeof size, "%zx", piece.size());
    chunked += std::string(size) + "\r\n" + piece + "\r\n";
  }
  upstream.enqueue(
      {"HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(big.size()) + "\r\n\r\n" + big});
  upstream.enqueue(
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked + "0\r\n\r\n"});
  EXPECT_EQ(call(request_to(upstream.url())).body, big);
  EXPECT_EQ(call(request_to(upstream.url())).body, big);
  EXPECT_EQ(upstream.connections(), 1u);
}

TEST_F(HttpStream, LocalhostIsTheLoopback) {
  Call out = call(request_to("http://LOCALHOST:" + std::to_string(upstream.port()) + "/v1"));
  ASSERT_FALSE(out.error) << out.error->what();
  const std::string head = upstream.requests().at(0);
  EXPECT_NE(
      strcasestr(head.c_str(), ("\r\nHost: localhost:" + std::to_string(upstream.port())).c_str()),
      nullptr)
      << head;
}

// The environment is read when a thread's handle is made (EasyHandle, curl_handles.h),
// as agentd's is set before it starts: the call runs on a thread of its own.
TEST_F(HttpStream, AProxyInTheEnvironmentIsUsed) {
  ScriptedUpstream proxy;
  ::setenv("http_proxy", ("http://127.0.0.1:" + std::to_string(proxy.port())).c_str(), 1);
  Call out;
  std::thread([&] { out = call(request_to(upstream.url())); }).join();
  ::unsetenv("http_proxy");
  ASSERT_FALSE(out.error) << out.error->what();
  ASSERT_EQ(proxy.requests().size(), 1u);
  EXPECT_EQ(proxy.requests()[0].rfind("POST " + upstream.url() + " HTTP/1.1", 0), 0u);
  EXPECT_EQ(upstream.connections(), 0u);
}

// One pass of libcurl over the socket reads a bounded amount, however much the upstream
// has sent: the pass's bytes are what the answer's cap is checked against once they are
// flushed, and what other streams of the same thread wait behind. libcurl 7.88 reads at
// most 100 buffers of 16 KiB a pass (readwrite_data in its lib/transfer.c).
TEST_F(HttpStream, OnePassReadsABoundedAmountWhateverIsWaiting) {
  const size_t size = 16 << 20;
  upstream.enqueue({"HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(size) + "\r\n\r\n" +
                    std::string(size, 'x')});
  size_t delivered = 0, pass = 0, largest_pass = 0;
  StreamCallbacks callbacks;
  callbacks.on_body = [&](std::string_view bytes) {
    delivered += bytes.size();
    pass += bytes.size();
  };
  callbacks.flush = [&] {
    largest_pass = std::max(largest_pass, pass);
    pass = 0;
  };
  providers::HttpResponse response =
      providers::post_streaming(request_to(upstream.url()), callbacks);
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(delivered, size);
  EXPECT_GT(largest_pass, 0u);
  EXPECT_LE(largest_pass, size_t{2} << 20);
}

}  // namespace
}  // namespace agentrt::test
