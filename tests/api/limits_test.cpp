// Rate limits and quotas against the real agentd (docs/operator-guide.md, "Rate limits
// and quotas"): a token's and a cell's request rates, an actor's runs under way, a cell's
// tokens of the day, a cell's own limits set by an admin, across restarts; 429 with
// Retry-After in agentrt's shape and in OpenAI's on /v1; and the refusals counted in
// /metrics. Runs are held open by a fake upstream that hangs, never by timing.
#include "tests/api/metrics_client.h"
#include "tests/api/openai_client.h"
#include "tests/api/vendor_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>

namespace agentrt::test {
namespace {

using nlohmann::json;

const std::string kModel = vendor_model(Vendor::openai);

// agentd on a data dir that outlives it, with `config` and a provider of kModel on a fake
// OpenAI upstream, so that it can be restarted.
class LimitedAgentd {
 public:
  explicit LimitedAgentd(const json& config, const std::string& mode = "single") {
    options_.private_data_dir = false;
    options_.args = {"--config",   dir_.write("config.json", config.dump()),
                     "--data-dir", dir_.path() + "/data",
                     "--mode",     mode};
    fake.require_key(vendor_key(Vendor::openai));
    start();
    admin = first_admin_token(*agentd);
    const json provider = {
        {"name", "openai"},
        {"type", "openai"},
        {"base_url", fake.base_url()},
        {"api_key_ref", {{"source", "inline"}, {"value", vendor_key(Vendor::openai)}}},
        {"options", {{"stall_timeout_ms", 30000}, {"connect_timeout_ms", 1000}}},
        {"models", {{{"id", kModel}, {"context_window", 4096}}}}};
    auto saved =
        call(*agentd, "POST", "/admin/shared-providers", admin, {{"providers", {provider}}});
    if (saved.status != 200) throw std::runtime_error("provider setup failed: " + saved.body);
  }

  void restart() {
    EXPECT_EQ(agentd->stop(), 0);
    agentd.reset();
    start();
  }

  std::string token(const std::string& actor) {
    return issue_token(*agentd, admin, {{"ttl", "1h"}, {"actor", actor}})["token"];
  }

  HttpResponse get(const std::string& path, const std::string& token) {
    return call(*agentd, "GET", path, token);
  }

  FakeUpstream fake{Vendor::openai};
  std::unique_ptr<AgentdProcess> agentd;
  std::string admin;

 private:
  void start() { agentd = std::make_unique<AgentdProcess>(options_); }

  TempDir dir_;
  AgentdOptions options_;
};

json with_limits(const json& cell_defaults) {
  return {{"limits", {{"cell_defaults", cell_defaults}}}};
}

// Whether `response` is a 429 rate_limited in agentrt's shape, naming `limit`, with a
// Retry-After of whole seconds from 1 to `max_wait`.
::testing::AssertionResult refused_by(const HttpResponse& response, const std::string& limit,
                                      int64_t max_wait) {
  if (response.status != 429)
    return ::testing::AssertionFailure() << "status " << response.status << ": " << response.body;
  const json& error = response.json()["error"];
  if (error["code"] != "rate_limited" || !error["request_id"].is_string())
    return ::testing::AssertionFailure() << "not rate_limited: " << response.body;
  const std::string message = error.value("message", "");
  if (message.find("(" + limit) == std::string::npos)
    return ::testing::AssertionFailure() << "does not name " << limit << ": " << message;
  const std::string wait = response.header("Retry-After");
  if (wait.empty() || wait.find_first_not_of("0123456789") != std::string::npos ||
      std::stoll(wait) < 1 || std::stoll(wait) > max_wait)
    return ::testing::AssertionFailure() << "Retry-After '" << wait << "'";
  return ::testing::AssertionSuccess();
}

double refusals(const AgentdProcess& agentd, const std::string& limit) {
  const auto scraped = agentd.request("GET", "/metrics");
  EXPECT_EQ(scraped.status, 200);
  return metric(parse_metrics(scraped.body), "agentrt_rate_limited_total", {{"limit", limit}});
}

TEST(RateLimits, ATokenPastItsBurstGets429UntilItsBucketRefills) {
  // One request a minute, three at once: the fourth waits up to a minute.
  LimitedAgentd s(with_limits({{"token_rate", {{"requests_per_minute", 1}, {"burst", 3}}}}));
  const std::string ada = s.token("ada"), bob = s.token("bob");
  for (int i = 0; i < 3; ++i) ASSERT_EQ(s.get("/sessions", ada).status, 200) << i;
  const HttpResponse refused = s.get("/sessions", ada);
  EXPECT_TRUE(refused_by(refused, "token_rate", 60));
  EXPECT_EQ(refused.body.find(ada), std::string::npos) << "never the token";
  EXPECT_NE(
      refused.json()["error"]["message"].get<std::string>().find("1 request a minute, 3 at once"),
      std::string::npos);

  // On /v1, OpenAI's shape, so that its SDKs wait and retry.
  const HttpResponse models = s.get("/v1/models", ada);
  EXPECT_TRUE(openai_error(models, 429, "rate_limit_error"));
  EXPECT_EQ(models.json()["error"]["code"], "rate_limited");
  EXPECT_FALSE(models.header("Retry-After").empty());

  EXPECT_EQ(s.get("/sessions", bob).status, 200) << "each token has its own bucket";
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(s.get("/sessions", s.admin).status, 200) << "an admin of the engine is not limited";
  EXPECT_EQ(s.agentd->request("GET", "/health").status, 200);
  EXPECT_EQ(refusals(*s.agentd, "token_rate"), 2);
  EXPECT_EQ(refusals(*s.agentd, "cell_rate"), 0) << "every limit's series is there from the start";
}

TEST(RateLimits, NothingIsLimitedByDefault) {
  LimitedAgentd s(json::object());
  const std::string ada = s.token("ada");
  for (int i = 0; i < 50; ++i) ASSERT_EQ(s.get("/sessions", ada).status, 200) << i;
  auto limits = s.get("/admin/cells/default/limits", s.admin);
  ASSERT_EQ(limits.status, 200) << limits.body;
  EXPECT_EQ(limits.json()["own"], json::object());
  EXPECT_EQ(limits.json()["effective"], (json{{"actor_runs", nullptr},
                                              {"cell_rate", nullptr},
                                              {"cell_tokens_per_day", nullptr},
                                              {"token_rate", nullptr}}));
}

TEST(RateLimits, ACellsOwnLimitsTakeEffectAndSurviveARestart) {
  LimitedAgentd s(json::object());
  const std::string ada = s.token("ada"), bob = s.token("bob");
  const json own = {{"cell_rate", {{"requests_per_minute", 1}, {"burst", 2}}}};
  auto put = call(*s.agentd, "PUT", "/admin/cells/default/limits", s.admin, own);
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(put.json()["cell"], "default");
  EXPECT_EQ(put.json()["own"], own);
  EXPECT_EQ(put.json()["effective"]["cell_rate"], own["cell_rate"]);
  EXPECT_EQ(s.get("/sessions", ada).status, 200);
  EXPECT_EQ(s.get("/sessions", bob).status, 200);
  EXPECT_TRUE(refused_by(s.get("/sessions", ada), "cell_rate", 60)) << "the cell's, all tokens";

  s.restart();
  auto read = s.get("/admin/cells/default/limits", s.admin);
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(read.json()["own"], own);
  EXPECT_EQ(s.get("/sessions", ada).status, 200);
  EXPECT_EQ(s.get("/sessions", bob).status, 200);
  EXPECT_TRUE(refused_by(s.get("/sessions", bob), "cell_rate", 60));

  auto cleared = call(*s.agentd, "PUT", "/admin/cells/default/limits", s.admin, json::object());
  ASSERT_EQ(cleared.status, 200) << cleared.body;
  EXPECT_EQ(cleared.json()["own"], json::object());
  EXPECT_EQ(s.get("/sessions", bob).status, 200);
  EXPECT_EQ(refusals(*s.agentd, "cell_rate"), 1) << "counted since this start";
}

TEST(RateLimits, ACellsLimitsAreCheckedAndOnlyTheEnginesAdminSetsThem) {
  LimitedAgentd s(json::object());
  const std::string ada = s.token("ada");
  const std::string path = "/admin/cells/default/limits";
  const std::vector<std::pair<json, std::string>> bad = {
      {{{"cell_rate", {{"requests_per_minute", 0}, {"burst", 2}}}},
       "cell_rate.requests_per_minute"},
      {{{"token_rate", {{"requests_per_minute", 5}}}}, "token_rate.burst"},
      {{{"actor_runs", "4"}}, "actor_runs"},
      {{{"cell_tokens_per_day", -1}}, "cell_tokens_per_day"},
      {{{"tokens_per_day", 5}}, "tokens_per_day"},
  };
  for (const auto& [body, param] : bad) {
    auto refused = call(*s.agentd, "PUT", path, s.admin, body);
    EXPECT_EQ(refused.status, 400) << body.dump();
    EXPECT_EQ(refused.json()["error"]["code"], "invalid_request");
    EXPECT_EQ(refused.json()["error"]["param"], param) << refused.body;
  }
  EXPECT_EQ(s.get(path, s.admin).json()["own"], json::object()) << "nothing refused was kept";
  EXPECT_EQ(call(*s.agentd, "PUT", path, s.admin, json::array()).status, 400);
  EXPECT_EQ(call(*s.agentd, "PUT", path, ada, {{"actor_runs", 1}}).status, 403);
  EXPECT_EQ(s.get(path, ada).status, 403);
  EXPECT_EQ(s.get("/admin/cells/nowhere/limits", s.admin).status, 404);
  EXPECT_EQ(
      call(*s.agentd, "PUT", "/admin/cells/nowhere/limits", s.admin, {{"actor_runs", 1}}).status,
      404);
}

TEST(RateLimits, ACellsLimitsGoWithTheCell) {
  LimitedAgentd s(json::object(), "multi");
  ASSERT_EQ(call(*s.agentd, "POST", "/admin/cells", s.admin, {{"id", "acme"}}).status, 201);
  const json own = {{"actor_runs", 3}};
  ASSERT_EQ(call(*s.agentd, "PUT", "/admin/cells/acme/limits", s.admin, own).status, 200);
  ASSERT_EQ(s.get("/admin/cells/acme/limits", s.admin).json()["own"], own);
  ASSERT_EQ(call(*s.agentd, "DELETE", "/admin/cells/acme", s.admin).status, 204);
  EXPECT_EQ(s.get("/admin/cells/acme/limits", s.admin).status, 404);
  ASSERT_EQ(call(*s.agentd, "POST", "/admin/cells", s.admin, {{"id", "acme"}}).status, 201);
  EXPECT_EQ(s.get("/admin/cells/acme/limits", s.admin).json()["own"], json::object())
      << "a cell made again under the id starts with the defaults";
  s.restart();
  EXPECT_EQ(s.get("/admin/cells/acme/limits", s.admin).json()["own"], json::object());
}

// A /run of `token`'s on a session of its own, whose upstream hangs after one delta: once
// that delta is read, the run is under way until its session is interrupted.
std::unique_ptr<SseClient> hanging_run(LimitedAgentd& s, const std::string& token,
                                       const std::string& session) {
  s.fake.enqueue(Reply::hang_after_headers(1));
  auto stream =
      open_run(*s.agentd, token, run_body("hold on", {{"model", kModel}, {"session_id", session}}));
  EXPECT_EQ(stream->status(), 200) << stream->error_body();
  EXPECT_EQ(stream->next()->at("type"), "run_start");
  EXPECT_EQ(stream->next()->at("type"), "stream_delta");
  return stream;
}

TEST(RateLimits, AnActorsRunsUnderWayAreCappedAndFreedAsEachEnds) {
  LimitedAgentd s(with_limits({{"actor_runs", 2}}));
  const std::string ada = s.token("ada"), bob = s.token("bob");
  auto first = hanging_run(s, ada, "one");
  auto second = hanging_run(s, ada, "two");

  const HttpResponse chat = call(*s.agentd, "POST", "/chat", ada, run_body("a third"));
  EXPECT_TRUE(refused_by(chat, "actor_runs", 1));
  EXPECT_NE(chat.body.find("actor 'ada' has 2 runs under way"), std::string::npos) << chat.body;
  auto run = open_run(*s.agentd, ada, run_body("a stream"));
  EXPECT_EQ(run->status(), 429) << "a stream is refused before its head";
  const HttpResponse completion =
      call(*s.agentd, "POST", "/v1/chat/completions", ada, openai_body("echo", "a fourth"));
  EXPECT_TRUE(openai_error(completion, 429, "rate_limit_error"));
  EXPECT_EQ(completion.header("Retry-After"), "1");
  const size_t upstream_calls = s.fake.request_count();

  EXPECT_EQ(call(*s.agentd, "POST", "/chat", bob, run_body("bob's")).status, 200)
      << "another actor's runs are his own";
  EXPECT_EQ(
      call(*s.agentd, "POST", "/chat", s.admin, run_body("admin's", {{"actor", "ada"}})).status,
      200)
      << "an admin of the engine is not limited";

  auto interrupted = call(*s.agentd, "POST", "/sessions/one/interrupt", ada);
  ASSERT_EQ(interrupted.status, 200) << interrupted.body;
  EXPECT_EQ(interrupted.json()["interrupted"], true);
  EXPECT_EQ(first->rest().back()["reason"], "interrupted");
  EXPECT_EQ(call(*s.agentd, "POST", "/chat", ada, run_body("now it fits")).status, 200);
  EXPECT_EQ(s.fake.request_count(), upstream_calls) << "a refused run never reached its upstream";
  EXPECT_EQ(refusals(*s.agentd, "actor_runs"), 3);
  EXPECT_EQ(call(*s.agentd, "POST", "/sessions/two/interrupt", ada).status, 200);
}

TEST(RateLimits, ABackgroundResponseHoldsItsActorsPlaceUntilItEnds) {
  LimitedAgentd s(with_limits({{"actor_runs", 1}}));
  const std::string ada = s.token("ada");
  s.fake.enqueue(Reply::hang_after_headers(1));
  auto started = call(*s.agentd, "POST", "/v1/responses", ada,
                      {{"model", kModel}, {"input", "take your time"}, {"background", true}});
  ASSERT_EQ(started.status, 200) << started.body;
  ASSERT_TRUE(s.fake.wait_for_requests(1, std::chrono::seconds(10)));
  EXPECT_TRUE(
      refused_by(call(*s.agentd, "POST", "/chat", ada, run_body("meanwhile")), "actor_runs", 1));
  const std::string id = started.json()["id"];
  auto cancelled = call(*s.agentd, "POST", "/v1/responses/" + id + "/cancel", ada);
  ASSERT_EQ(cancelled.status, 200) << cancelled.body;
  EXPECT_EQ(cancelled.json()["status"], "cancelled");
  EXPECT_EQ(call(*s.agentd, "POST", "/chat", ada, run_body("now")).status, 200);
}

int64_t utc_day_now() {
  using namespace std::chrono;
  return duration_cast<seconds>(system_clock::now().time_since_epoch()).count() / 86400;
}

int64_t seconds_to_utc_midnight() {
  using namespace std::chrono;
  const int64_t now = duration_cast<seconds>(system_clock::now().time_since_epoch()).count();
  return (now / 86400 + 1) * 86400 - now;
}

TEST(RateLimits, ACellsTokensOfTheDayAreRefusedPastItsQuotaAndAfterARestart) {
  const int64_t day = utc_day_now();
  LimitedAgentd s(with_limits({{"cell_tokens_per_day", 1000}}));
  Reply costly = Reply::answer("an expensive answer");
  costly.usage = FakeUsage{600, 500};
  s.fake.set_default(costly);
  const std::string ada = s.token("ada");
  auto spent = call(*s.agentd, "POST", "/chat", ada, run_body("spend", {{"model", kModel}}));
  ASSERT_EQ(spent.status, 200) << spent.body;
  EXPECT_EQ(spent.json()["usage"]["input_tokens"], 600);

  auto expect_refused = [&](const std::string& when) {
    const HttpResponse chat =
        call(*s.agentd, "POST", "/chat", ada, run_body("more", {{"model", kModel}}));
    ASSERT_TRUE(refused_by(chat, "cell_tokens_per_day", 86400)) << when;
    EXPECT_NEAR(std::stoll(chat.header("Retry-After")), seconds_to_utc_midnight(), 60)
        << "until the UTC day ends, " << when;
    const HttpResponse completion = call(*s.agentd, "POST", "/v1/chat/completions", ada,
                                         openai_body(kModel, "more", {{"stream", true}}));
    EXPECT_TRUE(openai_error(completion, 429, "rate_limit_error")) << when;
    auto limits = s.get("/admin/cells/default/limits", s.admin);
    EXPECT_EQ(limits.json()["tokens_today"], 1100) << when;
  };
  expect_refused("before the restart");
  const size_t upstream_calls = s.fake.request_count();
  s.restart();
  expect_refused("after the restart");
  EXPECT_EQ(s.fake.request_count(), upstream_calls);
  EXPECT_EQ(refusals(*s.agentd, "cell_tokens"), 2) << "counted since this start";
  EXPECT_EQ(call(*s.agentd, "POST", "/chat", s.admin, run_body("the operator's")).status, 200)
      << "an admin of the engine is not held to the quota";
  if (utc_day_now() != day) GTEST_SKIP() << "the UTC day ended during the test";
}

}  // namespace
}  // namespace agentrt::test
