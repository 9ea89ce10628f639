// List cursors: opaque, strict, and stable while entries are added and removed.
#include "memory_fixture.h"

#include "core/domain/plugin_call.h"
#include "core/memory/memory_service.h"
#include "list_cursor.h"

#include <algorithm>
#include <set>

namespace agentrt::test {
namespace {

using memory_sqlite::decode_cursor;
using memory_sqlite::encode_cursor;

TEST(MemoryCursorCodec, RoundTripsAndRefusesAnythingElse) {
  const sdk::CursorSeal seal = *sdk::CursorSeal::from_hex("00112233445566778899aabbccddeeff");
  for (int64_t seq : {int64_t{1}, int64_t{42}, int64_t{1} << 40, (int64_t{1} << 48) - 1})
    EXPECT_EQ(decode_cursor(encode_cursor(seq, seal), seal), seq);
  std::string good = encode_cursor(7, seal);
  EXPECT_EQ(good.find("0000000000000007"), std::string::npos) << "sealed: " << good;
  EXPECT_FALSE(decode_cursor(good, sdk::CursorSeal())) << "under another key";
  for (std::string bad : {std::string(), std::string("m2"), good + "0", good.substr(1),
                          std::string("m10000000000000007"), encode_cursor(0, seal),
                          std::string("m2000000000000000G"), std::string("m2-000000000000007")})
    EXPECT_FALSE(decode_cursor(bad, seal).has_value()) << bad;
}

// The host's key reaches the plugin (ABI 1.7 "cursor_key"), so its cursors are sealed
// under the data dir's key, not the all-zero one.
TEST_F(MemoryTest, CursorsAreSealedUnderTheHostsKey) {
  for (int i = 0; i < 3; ++i) save({});
  const std::string key = "00112233445566778899aabbccddeeff";
  core::PluginInstance keyed(host.find("memory-sqlite"),
                             json{{"data_dir", data_dir}, {"cursor_key", key}}.dump());
  json request = with(filter("c1"), {{"layer", "about_me"}, {"limit", 1}});
  const json page = core::call_plugin_json(keyed, keyed.plugin().memory_table().list, request);
  const std::string cursor = page["next_cursor"];
  const sdk::CursorSeal seal = *sdk::CursorSeal::from_hex(key);
  EXPECT_TRUE(decode_cursor(cursor, seal)) << cursor;
  EXPECT_FALSE(decode_cursor(cursor, sdk::CursorSeal())) << "sealed under the zero key";
  EXPECT_THROW(core::PluginInstance(host.find("memory-sqlite"),
                                    json{{"data_dir", data_dir}, {"cursor_key", "short"}}.dump()),
               core::PluginError);
}

TEST_F(MemoryTest, GarbageCursorsAreInvalid) {
  save({});
  for (json cursor : {json("garbage"), json(""), json("m2zzzzzzzzzzzzzzzz"), json("m1\"; DROP")}) {
    Failure f = failure([&] { list(filter("c1"), "about_me", 10, cursor); });
    EXPECT_EQ(f.code, AGENTRT_ERR_INVALID_ARGUMENT) << cursor;
    EXPECT_EQ(f.message, "invalid cursor");
  }
  Failure wrong_type = failure([&] { list(filter("c1"), "about_me", 10, 12); });
  EXPECT_EQ(wrong_type.code, AGENTRT_ERR_INVALID_ARGUMENT);
}

TEST_F(MemoryTest, PagingCoversEveryEntryExactlyOnceNewestFirst) {
  std::vector<std::string> saved;
  for (int i = 0; i < 23; ++i) saved.push_back(save({})["id"]);
  std::vector<std::string> expected(saved.rbegin(), saved.rend());
  for (int page : {1, 5, 22, 23, 24}) {
    std::vector<std::string> listed = ids_of(list_all(filter("c1", "alice"), "about_me", page));
    EXPECT_EQ(listed, expected) << "page " << page;
  }
  // An exactly full last page says there is nothing more.
  json first = list(filter("c1"), "about_me", 23);
  EXPECT_TRUE(first["next_cursor"].is_null());
}

TEST_F(MemoryTest, InsertsAndDeletesBetweenPagesNeitherRepeatNorSkip) {
  std::vector<std::string> saved;
  for (int i = 0; i < 10; ++i) saved.push_back(save({})["id"]);
  json f = filter("c1", "alice");
  json page1 = list(f, "about_me", 4);
  ASSERT_FALSE(page1["next_cursor"].is_null());
  for (int i = 0; i < 5; ++i) save({});  // newer than everything listed so far
  remove(f, saved[9]);                   // already listed (the newest)
  json page2 = list(f, "about_me", 4, page1["next_cursor"]);
  remove(f, saved[1]);  // not listed yet: it must simply not appear
  json page3 = list(f, "about_me", 4, page2["next_cursor"]);
  EXPECT_TRUE(page3["next_cursor"].is_null());

  std::vector<std::string> seen;
  for (const json* p : {&page1, &page2, &page3})
    for (const std::string& id : ids_of((*p)["data"])) seen.push_back(id);
  std::vector<std::string> expected = {saved[9], saved[8], saved[7], saved[6], saved[5],
                                       saved[4], saved[3], saved[2], saved[0]};
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), seen.size());
}

// An answer holds at most 8 MiB of entries (memory_sqlite::kAnswerBytes), whatever
// `limit` asks: 500 entries of documents made pages of gigabytes, then a 500 when the
// host's output cap refused them. A page ends early with a cursor,
// and the walk still sees every entry once; a search answers the best that fit.
TEST_F(MemoryTest, ListsAndSearchesOfLargeEntriesStayWithinTheAnswerBudget) {
  const std::string document = "report " + std::string(900 * 1024, 'd');
  std::vector<std::string> saved;
  for (int i = 0; i < 20; ++i) saved.push_back(save({{"content", document}})["id"]);
  const json f = filter("c1", "alice");
  const json first = list(f, "about_me", 500);
  EXPECT_LT(first["data"].size(), 20u);
  EXPECT_GE(first["data"].size(), 8u);
  ASSERT_FALSE(first["next_cursor"].is_null()) << "a page cut short says there is more";
  std::vector<std::string> seen;
  json page = first;
  for (;;) {
    for (const std::string& id : ids_of(page["data"])) seen.push_back(id);
    if (page["next_cursor"].is_null()) break;
    page = list(f, "about_me", 500, page["next_cursor"]);
  }
  std::reverse(saved.begin(), saved.end());
  EXPECT_EQ(seen, saved);
  const json hits = search(f, "report", nullptr, 20);
  EXPECT_LT(hits["data"].size(), 20u);
  EXPECT_GE(hits["data"].size(), 1u);
}

// A run's read of a layer (ABI 1.5 "max_tokens") leaves out the entries estimated
// larger than its window, which it read whole only to drop them (396 ms a
// /chat with 40 shared entries of 1 MB). The host sends it to backends of 1.5 or later.
TEST_F(MemoryTest, AListWithMaxTokensLeavesOutLargerEntries) {
  std::string words;
  for (int i = 0; i < 5000; ++i) words += "word ";
  const std::string big = save({{"content", words}})["id"];
  const std::string small = save({{"content", "a short fact"}})["id"];
  const json f = filter("c1", "alice");
  EXPECT_EQ(ids_of(list(f, "about_me")["data"]), (std::vector<std::string>{small, big}));
  json bounded = with(f, {{"layer", "about_me"}, {"limit", 20}, {"max_tokens", 1000}});
  EXPECT_EQ(ids_of(call(table().list, bounded)["data"]), (std::vector<std::string>{small}));

  core::MemoryService service(
      std::make_shared<core::PluginInstance>(host.find("memory-sqlite"),
                                             json{{"data_dir", data_dir}}.dump()),
      [](const std::string&, const std::string&, const std::string&) {
        return std::optional<core::StripedFence::Hold>();
      },
      [](const std::string&, std::optional<int64_t>) {
        return std::optional<core::CellFence::Hold>();
      });
  EXPECT_EQ(service.recent("c1", "about_me", "alice", std::nullopt, std::nullopt, 20, 1000).size(),
            1u);
  EXPECT_EQ(service.recent("c1", "about_me", "alice", std::nullopt, std::nullopt, 20).size(), 2u);
  for (const json& refused : {json(0), json("1000"), json(-5)}) {
    json request = with(f, {{"layer", "about_me"}, {"limit", 20}, {"max_tokens", refused}});
    EXPECT_THROW(call(table().list, request), core::PluginError) << refused;
  }
}

}  // namespace
}  // namespace agentrt::test
