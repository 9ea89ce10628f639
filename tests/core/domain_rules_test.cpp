// Pure rules of the domain: durations, cell fields, cursors, the actor rule.
#include "core/auth/principal.h"
#include "core/cells/cell_rules.h"
#include "core/domain/duration.h"
#include "core/domain/errors.h"
#include "core/domain/ids.h"
#include "core/domain/paging.h"

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <regex>
#include <set>

namespace agentrt::core {
namespace {

std::optional<int64_t> duration(const std::string& text) {
  std::string error;
  auto value = parse_duration(text, error);
  if (!value) {
    EXPECT_FALSE(error.empty()) << text;
  }
  return value;
}

TEST(Duration, AcceptsTheDocumentedShapes) {
  EXPECT_EQ(duration("90s"), 90);
  EXPECT_EQ(duration("15m"), 900);
  EXPECT_EQ(duration("24h"), 86400);
  EXPECT_EQ(duration("7d"), 7 * 86400);
  EXPECT_EQ(duration("1h30m"), 5400);
  EXPECT_EQ(duration("1d2h3m4s"), 86400 + 7200 + 180 + 4);
  EXPECT_EQ(duration("1s"), 1);
}

TEST(Duration, RefusesZeroNegativeGarbageAndHuge) {
  for (const char* bad : {"0s", "0h0m", "-5m", "5x", "30dx", "", "h", "5", "1m1h", "1h1h", " 5m",
                          "5m ", "1.5h", "99999999999999999999d", "3661d", "+5m"})
    EXPECT_FALSE(duration(bad)) << bad;
  EXPECT_TRUE(duration("3660d"));
}

TEST(CellRules, Ids) {
  EXPECT_TRUE(valid_cell_id("acme"));
  EXPECT_TRUE(valid_cell_id("a"));
  EXPECT_TRUE(valid_cell_id("team-7_b"));
  EXPECT_TRUE(valid_cell_id(std::string(63, 'a')));
  EXPECT_FALSE(valid_cell_id(std::string(64, 'a')));
  EXPECT_FALSE(valid_cell_id(""));
  EXPECT_FALSE(valid_cell_id("Acme"));
  EXPECT_FALSE(valid_cell_id("a/b"));
  EXPECT_FALSE(valid_cell_id("-a"));
  EXPECT_FALSE(valid_cell_id("_a"));
  EXPECT_FALSE(valid_cell_id("a b"));
}

TEST(CellRules, TimezonesComeFromTheZoneDatabase) {
  EXPECT_TRUE(valid_timezone("UTC"));
  EXPECT_TRUE(valid_timezone("Europe/Berlin"));
  EXPECT_TRUE(valid_timezone("America/Argentina/Buenos_Aires"));
  EXPECT_FALSE(valid_timezone("Mars/Olympus"));
  EXPECT_FALSE(valid_timezone("Europe"));  // a directory, not a zone
  EXPECT_FALSE(valid_timezone("../../etc/passwd"));
  EXPECT_FALSE(valid_timezone("/etc/localtime"));
  EXPECT_FALSE(valid_timezone(""));
  // Files of the zone directory that are no IANA name.
  for (const char* file :
       {"posixrules", "right/UTC", "posix/Europe/Berlin", "Factory", "localtime"})
    EXPECT_FALSE(valid_timezone(file)) << file;
}

TEST(CellRules, Locales) {
  for (const char* ok : {"en-US", "en", "de-CH-1996", "zh-Hans-CN", "es-419", "sr-Latn",
                         // RFC 5646 also has extensions, private use and extlangs: CLDR's
                         // calendars and collations are extensions.
                         "ja-JP-u-ca-japanese", "de-DE-u-co-phonebk", "en-x-private", "x-private",
                         "zh-yue-HK", "en-a-bbb-x-a-ccc", "de-DE-1901-u-co-phonebk-x-mine"})
    EXPECT_TRUE(valid_locale(ok)) << ok;
  for (const char* bad :
       {"!!", "", "e", "en_US", "en-", "english-US-x", "en-USA-", "en-u", "en-u-x", "en-x", "x",
        "en-a-b", "en-x-toolongpart", "i-klingon", "en-US-u-ca-x-"})
    EXPECT_FALSE(valid_locale(bad)) << bad;
}

TEST(Paging, CursorsRoundTripAndGarbageIsRefused) {
  for (int64_t p : {int64_t{0}, int64_t{1}, int64_t{255}, (int64_t{1} << 48) - 1})
    EXPECT_EQ(decode_cursor(encode_cursor(p)), p);
  std::string cursor = encode_cursor(1234);
  EXPECT_FALSE(decode_cursor(cursor.substr(0, cursor.size() - 1)));
  EXPECT_FALSE(decode_cursor("garbage"));
  EXPECT_FALSE(decode_cursor(""));
  std::string tampered = cursor;
  tampered[1] = tampered[1] == '1' ? '2' : '1';
  EXPECT_FALSE(decode_cursor(tampered));
}

// A cursor carries its position sealed under the data dir's key: in the clear, two of an
// actor's cursors would tell how many rows every cell wrote between them.
TEST(Paging, CursorsAreSealedUnderTheDataDirsKey) {
  use_cursor_key("0123456789abcdef0123456789abcdef");
  const std::string first = encode_cursor(41), next = encode_cursor(42);
  EXPECT_EQ(first.size(), 17u);
  EXPECT_EQ(first.find("29"), std::string::npos) << first;  // 41 in hex, nowhere
  int same = 0;
  for (size_t i = 1; i < first.size(); ++i) same += first[i] == next[i] ? 1 : 0;
  EXPECT_LT(same, 8) << first << " " << next << ": neighbours look unrelated";
  EXPECT_EQ(decode_cursor(first), 41);
  use_cursor_key("fedcba9876543210fedcba9876543210");
  EXPECT_FALSE(decode_cursor(first)) << "another data dir's cursor";
  EXPECT_NE(encode_cursor(41), first);
  use_cursor_key("not a key");  // ignored
  EXPECT_EQ(decode_cursor(encode_cursor(41)), 41);
  use_cursor_key(std::string(32, '0'));
}

TEST(Paging, LimitBounds) {
  EXPECT_EQ(parse_page_request(std::nullopt, std::nullopt).limit, 50);
  EXPECT_EQ(parse_page_request("500", std::nullopt).limit, 500);
  for (const char* bad : {"0", "501", "10000", "-1", "abc", "", "1e3"})
    EXPECT_THROW(parse_page_request(std::string(bad), std::nullopt), DomainError) << bad;
  EXPECT_THROW(parse_page_request(std::nullopt, std::string("nope")), DomainError);
}

TEST(ActorRule, NonAdminAlwaysActsAsItself) {
  Principal alice{"t1", "alice", std::nullopt, false, std::nullopt};
  EXPECT_EQ(acting_actor(alice, std::string("bob")), "alice");
  EXPECT_EQ(acting_actor(alice, std::nullopt), "alice");
  EXPECT_EQ(reading_actor(alice, std::string("bob")), "alice");
}

TEST(ActorRule, AdminNamesAnyActorOrNone) {
  Principal root{"t0", "admin", std::nullopt, true, std::nullopt};
  EXPECT_EQ(acting_actor(root, std::string("bob")), "bob");
  EXPECT_EQ(acting_actor(root, std::nullopt), "admin");
  EXPECT_EQ(reading_actor(root, std::string("bob")), "bob");
  EXPECT_EQ(reading_actor(root, std::nullopt), std::nullopt);
}

TEST(ActorRule, CellScopeAndAdminChecks) {
  Principal scoped{"t2", "carol", std::string("acme"), false, std::nullopt};
  EXPECT_NO_THROW(require_cell_access(scoped, "acme"));
  try {
    require_cell_access(scoped, "other");
    FAIL();
  } catch (const DomainError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::forbidden);
  }
  EXPECT_THROW(require_admin(scoped), DomainError);
  EXPECT_NO_THROW(require_admin(Principal{"t0", "admin", std::nullopt, true, std::nullopt}));
}

TEST(Ids, StartWithTheirTimeSoTheySortByCreation) {
  EXPECT_EQ(new_id("run", 0x0123456789abULL).substr(0, 16), "run_0123456789ab");
  const std::string earlier = new_id("ses", 1'700'000'000'000ULL);
  const std::string later = new_id("ses", 1'700'000'000'001ULL);
  EXPECT_LT(earlier, later);
  EXPECT_TRUE(std::regex_match(new_id("agt"), std::regex("agt_[0-9a-f]{24}")));
  std::set<std::string> seen;
  for (int i = 0; i < 10000; ++i) seen.insert(new_id("run", 42));  // one millisecond
  EXPECT_EQ(seen.size(), 10000u) << "ids of the same millisecond collided";
  // Longer than one batch of random_hex's, and longer than the per-thread pool.
  EXPECT_TRUE(std::regex_match(random_hex(40), std::regex("[0-9a-f]{80}")));
  const std::string large = random_hex(300);
  EXPECT_TRUE(std::regex_match(large, std::regex("[0-9a-f]{600}")));
  EXPECT_NE(large.substr(0, 64), large.substr(64, 64)) << "one batch handed out twice";
  EXPECT_EQ(random_hex(0), "");
}

// Random bytes are fetched ahead per thread (ids.cpp); a forked child starts with a
// copy of that store, and must not hand out the parent's next bytes as well.
TEST(Ids, AForkedChildDoesNotMintTheParentsNextIds) {
  new_id("run", 7);  // this thread's store of random bytes is now filled
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const std::string id = new_id("run", 7);
    const ssize_t written = write(pipe_fds[1], id.data(), id.size());
    _exit(written == static_cast<ssize_t>(id.size()) ? 0 : 1);
  }
  close(pipe_fds[1]);
  const std::string mine = new_id("run", 7);
  char theirs[64] = {0};
  const ssize_t got = read(pipe_fds[0], theirs, sizeof theirs - 1);
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_EQ(got, static_cast<ssize_t>(mine.size()));
  EXPECT_NE(std::string(theirs), mine) << "the child reused the parent's random bytes";
}

}  // namespace
}  // namespace agentrt::core
