// The policy of the rate limits and quotas (core/limits/limits.h) over a real state
// store and a clock the test moves: who is limited, by which limit, with which
// Retry-After; what an admin sets for a cell and what a restart reads back.
#include "core/limits/limits.h"
#include "core/cells/cell_service.h"
#include "core/config/config.h"
#include "core/domain/ids.h"
#include "core/limits/memory_rate_limiter.h"
#include "core/limits/utc_day.h"
#include "tests/core/fake_limit_clock.h"
#include "tests/core/temp_dir.h"

#include <gtest/gtest.h>

#include <functional>

namespace agentrt::core::limits {
namespace {

using nlohmann::json;

using limit_test::kSecond;
constexpr int64_t kNoon = limit_test::kDayStart + 12 * 3600 * 1000;  // 2026-12-07T12:00:00Z

// At noon.
struct NoonClock : limit_test::FakeLimitClock {
  NoonClock() { wall_ms = kNoon; }
};

// How a call was refused: nothing when it was not.
struct Refusal {
  std::string message;
  int64_t retry_after_s = 0;
};
std::optional<Refusal> refusal_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const DomainError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::rate_limited) << e.what();
    EXPECT_EQ(e.code(), "rate_limited");
    return Refusal{e.what(), e.retry_after_s()};
  }
  return std::nullopt;
}

Principal token(const std::string& id, const std::string& actor, bool admin = false,
                std::optional<std::string> cell = std::nullopt) {
  return Principal{id, actor, std::move(cell), admin, std::nullopt};
}

class LimitsPolicy : public ::testing::Test {
 protected:
  void SetUp() override { cells.create({{"id", "acme"}}); }

  // The engine's Limits over `defaults`, loaded as at a start.
  std::unique_ptr<Limits> start(CellLimits defaults) {
    auto limits = std::make_unique<Limits>(store, defaults,
                                           std::make_unique<InMemoryRateLimiter>(clock), clock);
    limits->load();
    return limits;
  }

  void store_run(const std::string& cell, int64_t unix_ms, int64_t input, int64_t output) {
    store.write([&](Connection& db) {
      db.prepare(
            "INSERT INTO runs(id, cell, session_id, actor, model, status, input_tokens, "
            "output_tokens, started_at) VALUES(?, ?, 's', 'ada', 'm', 'completed', ?, ?, 'x')")
          .bind(1, new_id("run", static_cast<uint64_t>(unix_ms)))
          .bind(2, cell)
          .bind(3, input)
          .bind(4, output)
          .run();
    });
  }

  core::test_util::TempDir dir;
  StateStore store{dir.path()};
  CellService cells{store, /*single_cell=*/false};
  NoonClock clock;
};

TEST_F(LimitsPolicy, NoLimitsByDefault) {
  auto limits = start({});
  const Principal ada = token("t1", "ada");
  for (int i = 0; i < 1000; ++i)
    ASSERT_FALSE(refusal_of([&] { limits->admit_request(ada, "acme"); }));
  std::vector<RunAdmission> runs;
  for (int i = 0; i < 100; ++i) runs.push_back(limits->admit_run(ada, "acme", "ada"));
}

TEST_F(LimitsPolicy, ATokenPastItsBurstIsRefusedUntilItsBucketRefills) {
  CellLimits defaults;
  defaults.token_rate = Rate{30, 2};  // one each two seconds
  auto limits = start(defaults);
  const Principal ada = token("t1", "ada");
  limits->admit_request(ada, "acme");
  limits->admit_request(ada, "acme");
  auto refused = refusal_of([&] { limits->admit_request(ada, "acme"); });
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->retry_after_s, 2);
  EXPECT_NE(refused->message.find("token_rate"), std::string::npos) << refused->message;
  EXPECT_NE(refused->message.find("30 requests a minute, 2 at once"), std::string::npos);
  EXPECT_FALSE(refusal_of([&] { limits->admit_request(token("t2", "bob"), "acme"); }))
      << "another token has its own bucket";
  EXPECT_FALSE(refusal_of([&] { limits->admit_request(token("root", "admin", true), "acme"); }))
      << "an admin of the engine is never limited";
  clock.steady += 2 * kSecond;
  EXPECT_FALSE(refusal_of([&] { limits->admit_request(ada, "acme"); }));
  EXPECT_TRUE(refusal_of([&] { limits->admit_request(ada, ""); }))
      << "root routes take from the same bucket, at the defaults";
}

TEST_F(LimitsPolicy, ACellsRateIsSharedByItsTokensAndItsAdminIsLimited) {
  CellLimits defaults;
  defaults.cell_rate = Rate{60, 3};
  auto limits = start(defaults);
  limits->admit_request(token("t1", "ada"), "acme");
  limits->admit_request(token("t2", "bob"), "acme");
  limits->admit_request(token("t3", "admin", true, "acme"), "acme");
  auto refused = refusal_of([&] { limits->admit_request(token("t4", "cyd"), "acme"); });
  ASSERT_TRUE(refused) << "a cell's admin token is the tenant's, and counts";
  EXPECT_NE(refused->message.find("cell 'acme'"), std::string::npos) << refused->message;
  EXPECT_NE(refused->message.find("cell_rate"), std::string::npos);
  EXPECT_EQ(refused->retry_after_s, 1);
  EXPECT_FALSE(refusal_of([&] { limits->admit_request(token("t1", "ada"), "other"); }));
}

TEST_F(LimitsPolicy, AnActorsRunsUnderWayAreCountedUntilEachEnds) {
  CellLimits defaults;
  defaults.actor_runs = 2;
  auto limits = start(defaults);
  const Principal ada = token("t1", "ada");
  RunAdmission first = limits->admit_run(ada, "acme", "ada");
  RunAdmission second = limits->admit_run(ada, "acme", "ada");
  auto refused = refusal_of([&] { limits->admit_run(ada, "acme", "ada"); });
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->message.find("actor 'ada' has 2 runs under way"), std::string::npos)
      << refused->message;
  EXPECT_EQ(refused->retry_after_s, 1);
  EXPECT_FALSE(refusal_of([&] { limits->admit_run(token("t2", "bob"), "acme", "bob"); }));
  EXPECT_FALSE(refusal_of([&] { limits->admit_run(ada, "other", "ada"); })) << "per cell";
  first.end();
  RunAdmission third = limits->admit_run(ada, "acme", "ada");
  {
    RunAdmission moved = std::move(second);  // a run's admission moves with it
  }
  RunAdmission fourth = limits->admit_run(ada, "acme", "ada");
  EXPECT_TRUE(refusal_of([&] { limits->admit_run(ada, "acme", "ada"); }));
}

TEST_F(LimitsPolicy, ACellPastItsTokensOfTheDayWaitsForTheNextUtcDay) {
  CellLimits defaults;
  defaults.cell_tokens_per_day = 1000;
  auto limits = start(defaults);
  const Principal ada = token("t1", "ada");
  limits->admit_run(ada, "acme", "ada").count_tokens(600);
  limits->admit_run(ada, "acme", "ada").count_tokens(500);  // admitted at 600: under
  auto refused = refusal_of([&] { limits->admit_run(ada, "acme", "ada"); });
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->retry_after_s, 12 * 3600) << "noon: half a day to go";
  EXPECT_NE(refused->message.find("1000 tokens of the day"), std::string::npos);
  EXPECT_NE(refused->message.find("2026-12-08T00:00:00Z"), std::string::npos) << refused->message;
  EXPECT_FALSE(refusal_of([&] { limits->admit_request(ada, "acme"); })) << "requests go on";
  // An admin's runs are never refused, and their tokens count in the cell's day.
  limits->admit_run(token("root", "admin", true), "acme", "admin").count_tokens(7);
  EXPECT_EQ(limits->report("acme")["tokens_today"], 1107);
  clock.wall_ms += 12 * 3600 * 1000;
  EXPECT_FALSE(refusal_of([&] { limits->admit_run(ada, "acme", "ada"); })) << "a new day";
  EXPECT_EQ(limits->report("acme")["tokens_today"], 0);
}

TEST_F(LimitsPolicy, TodaysTokensAreReadFromStoredRunsAtStart) {
  store_run("acme", kNoon - 3600 * 1000, 400, 300);
  store_run("acme", kNoon - 60 * 1000, 200, 150);
  store_run("acme", kNoon - 13 * 3600 * 1000, 5000, 5000);  // yesterday
  store_run("other", kNoon, 9, 9);
  CellLimits defaults;
  defaults.cell_tokens_per_day = 1000;
  auto limits = start(defaults);
  EXPECT_EQ(limits->report("acme")["tokens_today"], 1050);
  EXPECT_TRUE(refusal_of([&] { limits->admit_run(token("t1", "ada"), "acme", "ada"); }));
  EXPECT_EQ(limits->report("other")["tokens_today"], 18);
}

TEST_F(LimitsPolicy, ACellsOwnLimitsOverrideTheDefaultsAndAreStored) {
  CellLimits defaults;
  defaults.actor_runs = 5;
  defaults.token_rate = Rate{600, 10};
  auto limits = start(defaults);
  const json own = {{"token_rate", nullptr}, {"cell_tokens_per_day", 100}};
  const json report = limits->set_own("acme", own);
  EXPECT_EQ(report["own"], own);
  EXPECT_EQ(report["effective"], (json{{"actor_runs", 5},
                                       {"cell_rate", nullptr},
                                       {"cell_tokens_per_day", 100},
                                       {"token_rate", nullptr}}));
  EXPECT_EQ(report["day_ends_at"], "2026-12-08T00:00:00Z");
  const Principal ada = token("t1", "ada");
  for (int i = 0; i < 50; ++i) limits->admit_request(ada, "acme");  // no token_rate here

  auto restarted = start(defaults);
  EXPECT_EQ(restarted->report("acme")["own"], own);
  EXPECT_EQ(restarted->report("acme")["effective"]["cell_tokens_per_day"], 100);
  EXPECT_EQ(restarted->report("other")["own"], json::object());
  EXPECT_EQ(restarted->report("other")["effective"]["token_rate"]["burst"], 10);

  restarted->set_own("acme", json::object());
  EXPECT_EQ(start(defaults)->report("acme")["own"], json::object()) << "{} removes the row";
}

TEST_F(LimitsPolicy, ARefusedValueChangesNothing) {
  auto limits = start({});
  limits->set_own("acme", {{"actor_runs", 3}});
  try {
    limits->set_own("acme", {{"actor_runs", 4}, {"token_rate", {{"burst", 0}}}});
    FAIL() << "accepted";
  } catch (const LimitValueError& e) {
    EXPECT_EQ(e.field(), "token_rate.burst");
  }
  EXPECT_EQ(limits->report("acme")["own"], (json{{"actor_runs", 3}}));
  EXPECT_EQ(start({})->report("acme")["own"], (json{{"actor_runs", 3}}));
}

TEST_F(LimitsPolicy, ADeletedCellTakesItsLimitsAndItsCountsWithIt) {
  auto limits = start({});
  cells.add_forget([&](const std::string& cell) { limits->forget_cell(cell); });
  limits->set_own("acme", {{"cell_tokens_per_day", 10}});
  limits->admit_run(token("t1", "ada"), "acme", "ada").count_tokens(50);
  cells.remove("acme");
  cells.create({{"id", "acme"}});
  EXPECT_EQ(limits->report("acme")["own"], json::object());
  EXPECT_EQ(limits->report("acme")["tokens_today"], 0);
  int rows = -1;
  store.read([&](Connection& db) {
    auto count = db.prepare("SELECT count(*) FROM cell_limits");
    count.step();
    rows = static_cast<int>(count.column_int(0));
  });
  EXPECT_EQ(rows, 0) << "the row went with its cell";
}

TEST(LimitSettings, TheReaderNamesTheFieldItRefuses) {
  struct Case {
    json object;
    std::string field;
  };
  const std::vector<Case> cases = {
      {{{"token_rate", {{"requests_per_minute", 0}, {"burst", 1}}}},
       "token_rate.requests_per_minute"},
      {{{"token_rate", {{"requests_per_minute", 10}}}}, "token_rate.burst"},
      {{{"cell_rate", {{"requests_per_minute", 10}, {"burst", 1.5}}}}, "cell_rate.burst"},
      {{{"cell_rate", {{"requests_per_minute", 10}, {"burst", 1}, {"per", 2}}}}, "cell_rate.per"},
      {{{"cell_rate", 100}}, "cell_rate"},
      {{{"actor_runs", -1}}, "actor_runs"},
      {{{"actor_runs", "4"}}, "actor_runs"},
      {{{"actor_runs", kMaxActorRuns + 1}}, "actor_runs"},
      {{{"cell_tokens_per_day", 0}}, "cell_tokens_per_day"},
      {{{"tokens_per_day", 5}}, "tokens_per_day"},
      {json::array(), ""},
  };
  for (const Case& c : cases) {
    try {
      apply_limits({}, c.object);
      ADD_FAILURE() << "accepted " << c.object.dump();
    } catch (const LimitValueError& e) {
      EXPECT_EQ(e.field(), c.field) << c.object.dump();
      EXPECT_EQ(e.kind(), ErrorKind::invalid);
    }
  }
}

TEST(LimitSettings, AnObjectReplacesWhatItNamesAndNullLiftsALimit) {
  CellLimits base;
  base.token_rate = Rate{60, 5};
  base.actor_runs = 3;
  const CellLimits applied = apply_limits(
      base, {{"token_rate", nullptr},
             {"cell_rate", {{"requests_per_minute", kMaxRequestsPerMinute}, {"burst", kMaxBurst}}},
             {"cell_tokens_per_day", kMaxTokensPerDay}});
  EXPECT_FALSE(applied.token_rate);
  EXPECT_EQ(applied.cell_rate, (Rate{kMaxRequestsPerMinute, kMaxBurst}));
  EXPECT_EQ(applied.actor_runs, 3u) << "left out: kept";
  EXPECT_EQ(applied.cell_tokens_per_day, kMaxTokensPerDay);
  EXPECT_EQ(apply_limits(applied, to_json(applied)), applied) << "to_json reads back the same";
}

// The config file's defaults go through the same reader, named as config keys.
TEST(LimitSettings, TheConfigFileSetsTheDefaultsOfEveryCell) {
  EXPECT_EQ(Config{}.limits.cell_defaults, CellLimits{}) << "no limits unless configured";
  const Config config = apply_config_json(
      Config{}, {{"limits",
                  {{"cell_defaults",
                    {{"token_rate", {{"requests_per_minute", 600}, {"burst", 20}}},
                     {"actor_runs", 4},
                     {"cell_tokens_per_day", 2000000}}}}}});
  EXPECT_EQ(config.limits.cell_defaults.token_rate, (Rate{600, 20}));
  EXPECT_FALSE(config.limits.cell_defaults.cell_rate);
  EXPECT_EQ(config.limits.cell_defaults.actor_runs, 4u);
  EXPECT_EQ(config.limits.cell_defaults.cell_tokens_per_day, 2000000u);

  const std::vector<std::pair<json, std::string>> bad = {
      {{{"token_rate", {{"requests_per_minute", 600}, {"burst", 0}}}},
       "config key 'limits.cell_defaults.token_rate.burst' must be an integer from 1 to 1000000, "
       "got 0"},
      {{{"token_rate", {{"burst", 3}}}},
       "config key 'limits.cell_defaults.token_rate.requests_per_minute' is required"},
      {{{"actor_run", 3}}, "unknown config key 'limits.cell_defaults.actor_run'"},
      {json::array(), ""},
  };
  for (const auto& [section, message] : bad) {
    try {
      apply_config_json(Config{}, {{"limits", {{"cell_defaults", section}}}});
      ADD_FAILURE() << "accepted " << section.dump();
    } catch (const ConfigError& e) {
      if (!message.empty()) {
        EXPECT_EQ(std::string(e.what()), message);
      }
      EXPECT_EQ(e.key().rfind("limits.cell_defaults", 0), 0u) << e.key();
    }
  }
}

}  // namespace
}  // namespace agentrt::core::limits
