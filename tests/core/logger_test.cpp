#include "core/log/logger.h"
#include "core/log/request_log.h"
#include "tests/core/temp_dir.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <ctime>

#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace agentrt::core {
namespace {

using nlohmann::json;

class LoggerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Logger::set_level(LogLevel::debug);
    Logger::set_sink([this](std::string_view line) {
      std::lock_guard<std::mutex> lock(mutex_);
      lines_.emplace_back(line);
    });
  }
  void TearDown() override {
    Logger::set_sink(nullptr);
    Logger::set_level(LogLevel::info);
  }

  std::vector<std::string> lines() {
    std::lock_guard<std::mutex> lock(mutex_);
    return lines_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> lines_;
};

bool is_timestamp(const std::string& text) {
  static const std::regex pattern(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$)");
  return std::regex_match(text, pattern);
}

TEST_F(LoggerTest, LineIsOneJsonObjectWithTimeLevelMsgAndFields) {
  log_info("request done", {{"status", 200}, {"route", "/health"}});
  auto captured = lines();
  ASSERT_EQ(captured.size(), 1u);
  const std::string& line = captured[0];
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "exactly one line";
  EXPECT_EQ(line.rfind("{\"time\":\"", 0), 0u) << "time comes first: " << line;

  json parsed = json::parse(line);
  ASSERT_TRUE(parsed.is_object());
  EXPECT_TRUE(is_timestamp(parsed.at("time").get<std::string>())) << parsed.at("time");
  EXPECT_EQ(parsed.at("level"), "info");
  EXPECT_EQ(parsed.at("msg"), "request done");
  EXPECT_EQ(parsed.at("status"), 200);
  EXPECT_EQ(parsed.at("route"), "/health");
  EXPECT_EQ(parsed.size(), 5u);
}

TEST_F(LoggerTest, EachLevelIsNamedInTheLine) {
  log_debug("d");
  log_info("i");
  log_warn("w");
  log_error("e");
  auto captured = lines();
  ASSERT_EQ(captured.size(), 4u);
  const char* expected[] = {"debug", "info", "warn", "error"};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(json::parse(captured[i]).at("level"), expected[i]);
  }
}

TEST_F(LoggerTest, MessageIsEscapedAndInvalidUtf8DoesNotThrow) {
  log_info("quote \" newline \n tab \t");
  log_info(std::string("bad \xff\xfe utf8"), {{"field", std::string("also \xc3 bad")}});
  auto captured = lines();
  ASSERT_EQ(captured.size(), 2u);
  EXPECT_EQ(json::parse(captured[0]).at("msg"), "quote \" newline \n tab \t");
  EXPECT_NO_THROW(json::parse(captured[1]));
}

TEST_F(LoggerTest, FieldsNamedLikeFixedKeysAreRenamedNotDuplicated) {
  log_info("real", {{"msg", "fake"}, {"level", "fake"}, {"time", "fake"}});
  json parsed = json::parse(lines().at(0));
  EXPECT_EQ(parsed.at("msg"), "real");
  EXPECT_EQ(parsed.at("level"), "info");
  EXPECT_EQ(parsed.at("fields.msg"), "fake");
  EXPECT_EQ(parsed.at("fields.level"), "fake");
  EXPECT_EQ(parsed.at("fields.time"), "fake");
}

TEST_F(LoggerTest, NonObjectFieldsGoUnderFields) {
  log_info("list", json::array({1, 2}));
  json parsed = json::parse(lines().at(0));
  EXPECT_EQ(parsed.at("fields"), json::array({1, 2}));
}

TEST_F(LoggerTest, LevelFilterDropsLowerLevels) {
  Logger::set_level(LogLevel::warn);
  EXPECT_FALSE(Logger::enabled(LogLevel::debug));
  EXPECT_FALSE(Logger::enabled(LogLevel::info));
  EXPECT_TRUE(Logger::enabled(LogLevel::warn));
  EXPECT_TRUE(Logger::enabled(LogLevel::error));
  log_debug("no");
  log_info("no");
  Logger::write(LogLevel::info, "no, also through write()");
  log_warn("yes");
  log_error("yes");
  auto captured = lines();
  ASSERT_EQ(captured.size(), 2u);
  EXPECT_EQ(json::parse(captured[0]).at("level"), "warn");
  EXPECT_EQ(json::parse(captured[1]).at("level"), "error");
}

TEST(LogLevelTest, ParsesTheFourNamesOnly) {
  EXPECT_EQ(parse_log_level("debug"), LogLevel::debug);
  EXPECT_EQ(parse_log_level("info"), LogLevel::info);
  EXPECT_EQ(parse_log_level("warn"), LogLevel::warn);
  EXPECT_EQ(parse_log_level("error"), LogLevel::error);
  EXPECT_FALSE(parse_log_level("verbose"));
  EXPECT_FALSE(parse_log_level(""));
  EXPECT_FALSE(parse_log_level("warning"));
  for (LogLevel level : {LogLevel::debug, LogLevel::info, LogLevel::warn, LogLevel::error}) {
    EXPECT_EQ(parse_log_level(log_level_name(level)), level);
  }
}

TEST(LogTimestampTest, IsIso8601UtcWithMilliseconds) {
  EXPECT_TRUE(is_timestamp(utc_timestamp_now())) << utc_timestamp_now();
}

// Each thread caches the formatted second: across a change of second the text must
// follow the clock, never repeat a stale second or go backwards.
TEST(LogTimestampTest, FollowsTheClockAcrossSeconds) {
  std::string first = utc_timestamp_now();
  std::string last = first;
  while (last.substr(0, 19) == first.substr(0, 19)) {
    std::string next = utc_timestamp_now();
    ASSERT_TRUE(is_timestamp(next)) << next;
    ASSERT_GE(next, last);
    last = next;
  }
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char expected[32];
  std::strftime(expected, sizeof expected, "%Y-%m-%dT%H:%M:%S", &tm);
  EXPECT_EQ(utc_timestamp_now().substr(0, 19), std::string(expected)) << "a new second, formatted";
}

// Through the real stderr path: many threads writing long lines at once must still
// produce whole lines, which only holds if each line goes out in one write().
TEST(LoggerStderrTest, ConcurrentWritersProduceWholeLines) {
  test_util::TempDir dir;
  const std::string path = dir.file("stderr.log");
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  ASSERT_GE(fd, 0);
  int saved = ::dup(STDERR_FILENO);
  ASSERT_GE(saved, 0);
  ASSERT_GE(::dup2(fd, STDERR_FILENO), 0);
  ::close(fd);

  Logger::set_sink(nullptr);
  Logger::set_level(LogLevel::info);
  constexpr int kThreads = 8;
  constexpr int kLines = 300;
  const std::string padding(3000, 'x');
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &padding] {
      for (int i = 0; i < kLines; ++i) log_info(padding, {{"thread", t}, {"i", i}});
    });
  }
  for (auto& thread : threads) thread.join();
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);

  std::ifstream in(path);
  std::string line;
  std::set<std::pair<int, int>> seen;
  while (std::getline(in, line)) {
    json parsed = json::parse(line, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(parsed.is_object()) << "torn line: " << line.substr(0, 200);
    EXPECT_EQ(parsed.at("msg"), padding);
    seen.emplace(parsed.at("thread").get<int>(), parsed.at("i").get<int>());
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(kThreads * kLines));
}

}  // namespace
}  // namespace agentrt::core

namespace agentrt::core {
namespace {

TEST(RequestLogFields, FieldsGoToTheInnermostRequestOfTheThreadAndNowhereElse) {
  EXPECT_EQ(RequestLogFields::current(), nullptr) << "no request on this thread";
  RequestLogFields outer;
  ASSERT_EQ(RequestLogFields::current(), &outer.fields());
  RequestLogFields::current()->text("run_id", "run_a");
  {
    RequestLogFields inner;
    ASSERT_EQ(RequestLogFields::current(), &inner.fields());
    RequestLogFields::current()->text("run_id", "run_b");
    EXPECT_EQ(inner.fields().members(), R"(,"run_id":"run_b")");
  }
  ASSERT_EQ(RequestLogFields::current(), &outer.fields()) << "the innermost again";
  RequestLogFields::current()->integer("attempts", 2);
  EXPECT_EQ(outer.fields().members(), R"(,"run_id":"run_a","attempts":2)");
  std::thread other([] { EXPECT_EQ(RequestLogFields::current(), nullptr); });
  other.join();
}

// A request's line is written from fields kept as JSON text: the line must read as the
// same JSON a json object of those fields gave, escapes, letters past ASCII and
// invalid UTF-8 included, and keep the line's own keys its own.
TEST(LogFields, WriteALineThatReadsAsTheFieldsGiven) {
  std::vector<std::string> lines;
  Logger::set_sink([&](std::string_view line) { lines.emplace_back(line); });
  LogFields run;
  run.text("run_id", "run_1").integer("input_tokens", -7);
  LogFields fields;
  fields.text("path", "/a \"b\"\n\xc3\xa9\x01")
      .text("bad", "\xff")
      .integer("status", 200)
      .millis("duration_ms", 1234567)
      .millis("short_ms", 5)
      .text("msg", "mine")
      .append(run);
  log_info("request", fields);
  Logger::set_sink(nullptr);
  ASSERT_EQ(lines.size(), 1u);
  ASSERT_EQ(lines[0].back(), '\n');
  const json line = json::parse(lines[0]);
  EXPECT_EQ(line["msg"], "request");
  EXPECT_EQ(line["level"], "info");
  EXPECT_EQ(line["path"], "/a \"b\"\n\xc3\xa9\x01");
  EXPECT_EQ(line["bad"], "\xef\xbf\xbd") << "invalid UTF-8 is replaced, never thrown on";
  EXPECT_EQ(line["status"], 200);
  EXPECT_DOUBLE_EQ(line["duration_ms"].get<double>(), 1234.567);
  EXPECT_DOUBLE_EQ(line["short_ms"].get<double>(), 0.005);
  EXPECT_EQ(line["fields.msg"], "mine");
  EXPECT_EQ(line["run_id"], "run_1");
  EXPECT_EQ(line["input_tokens"], -7);
  EXPECT_EQ(line.size(), 11u);
}

}  // namespace
}  // namespace agentrt::core
