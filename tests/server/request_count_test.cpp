// When the pipeline counts a request in /metrics: before its complete body is written,
// so a client that holds a response finds it counted in the very next scrape, even
// while the thread that served it is still busy. Real HTTP stack in process.
#include "core/metrics/metrics.h"
#include "server/http/http_server.h"
#include "server/http/response.h"
#include "tests/api/http_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <string>
#include <thread>

namespace agentrt::server {
namespace {

// The thread goes on after the response went out, as a handler that cleans up would.
constexpr auto kLingerAfterSend = std::chrono::milliseconds(500);

class RequestCount : public testing::Test {
 protected:
  static void SetUpTestSuite() { std::signal(SIGPIPE, SIG_IGN); }

  void SetUp() override {
    auto router = std::make_shared<Router>(core::CellMode::single);
    router->add({"GET", "/answer-then-linger", RouteScope::root, RouteAccess::open, false,
                 [](RequestContext&, Response& r) {
                   r.send_json(200, {{"ok", true}});
                   std::this_thread::sleep_for(kLingerAfterSend);
                 }});
    HttpServerOptions options;
    options.threads = 4;
    server_ = std::make_unique<HttpServer>(
        options, std::make_shared<RequestPipeline>(router, PipelineOptions{1024}));
    server_->start();
  }

  static bool counted(const std::string& sample) {
    return core::metrics::active()->exposition(0).find(sample + " 1\n") != std::string::npos;
  }

  core::metrics::Installed metrics_{core::MetricsConfig{}};
  std::unique_ptr<HttpServer> server_;
};

TEST_F(RequestCount, ARequestIsCountedBeforeItsClientHasTheResponse) {
  const auto began = std::chrono::steady_clock::now();
  auto response = test::http_request(server_->port(), "GET", "/answer-then-linger", {}, {});
  ASSERT_EQ(response.status, 200) << response.body;
  ASSERT_LT(std::chrono::steady_clock::now() - began, kLingerAfterSend)
      << "the response came only once the handler returned";
  EXPECT_TRUE(counted(
      R"(agentrt_http_requests_total{method="GET",route="/answer-then-linger",status="200"})"));
}

TEST_F(RequestCount, AnUnmatchedRequestIsCountedBeforeItsClientHasTheResponse) {
  for (int i = 1; i <= 50; ++i) {
    ASSERT_EQ(test::http_request(server_->port(), "GET", "/nowhere", {}, {}).status, 404);
    const std::string text = core::metrics::active()->exposition(0);
    EXPECT_NE(
        text.find(R"(agentrt_http_requests_total{method="GET",route="unmatched",status="404"} )" +
                  std::to_string(i) + "\n"),
        std::string::npos)
        << "after request " << i;
  }
}

}  // namespace
}  // namespace agentrt::server
