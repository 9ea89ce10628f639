// Save, get, list and remove round trips, the entry's shape, and request validation.
#include "memory_fixture.h"

#include <regex>

namespace agentrt::test {
namespace {

TEST_F(MemoryTest, SaveReturnsTheStoredEntry) {
  json e = save({{"layer", "agent_memory"},
                 {"content", "prefers tea"},
                 {"namespace", "helper"},
                 {"session_id", "s1"},
                 {"metadata", {{"source", "chat"}, {"n", 2}}}});
  EXPECT_TRUE(std::regex_match(e["id"].get<std::string>(), std::regex("mem_[0-9a-f]{24}")));
  EXPECT_EQ(e["layer"], "agent_memory");
  EXPECT_EQ(e["content"], "prefers tea");
  EXPECT_EQ(e["namespace"], "helper");
  EXPECT_EQ(e["actor"], "alice");
  EXPECT_EQ(e["session_id"], "s1");
  EXPECT_EQ(e["metadata"], json({{"source", "chat"}, {"n", 2}}));
  std::regex iso("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z");
  EXPECT_TRUE(std::regex_match(e["created_at"].get<std::string>(), iso)) << e["created_at"];
  EXPECT_EQ(e["updated_at"], e["created_at"]);
  EXPECT_FALSE(e.contains("requested_layer"));
  EXPECT_EQ(e.size(), 9u);
}

TEST_F(MemoryTest, NullNamespaceSessionAndMissingMetadataComeBackAsNullAndEmpty) {
  json request = {{"cell", "c1"}, {"layer", "working"}, {"content", "x"}, {"actor", "bob"}};
  json e = call(table().save, request);
  EXPECT_TRUE(e["namespace"].is_null());
  EXPECT_TRUE(e["session_id"].is_null());
  EXPECT_EQ(e["metadata"], json::object());
}

TEST_F(MemoryTest, GetReturnsWhatSaveReturned) {
  json saved = save({{"content", "likes hiking"}, {"metadata", {{"k", "v"}}}});
  EXPECT_EQ(get(filter("c1", "alice"), saved["id"]), saved);
  EXPECT_EQ(get(filter("c1"), saved["id"]), saved);
}

TEST_F(MemoryTest, GetOfAnUnknownOrMalformedIdIsNotFound) {
  for (std::string id : {"mem_000000000000000000000000", "nope", "mem_' OR 1=1 --"}) {
    Failure f = failure([&] { get(filter("c1"), id); });
    EXPECT_EQ(f.code, AGENTRT_ERR_NOT_FOUND) << id;
    EXPECT_EQ(f.message, "memory entry not found");
  }
  EXPECT_EQ(failure([&] { get(filter("c1"), ""); }).code, AGENTRT_ERR_INVALID_ARGUMENT);
}

TEST_F(MemoryTest, ListIsNewestFirstAndPerLayer) {
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(save({{"content", "n" + std::to_string(i)}})["id"]);
  save({{"layer", "working"}});
  std::vector<std::string> expected(ids.rbegin(), ids.rend());
  json page = list(filter("c1", "alice"), "about_me");
  EXPECT_EQ(ids_of(page["data"]), expected);
  EXPECT_TRUE(page["next_cursor"].is_null());
  EXPECT_EQ(list(filter("c1", "alice"), "working")["data"].size(), 1u);
  EXPECT_EQ(list(filter("c1", "alice"), "session")["data"].size(), 0u);
}

TEST_F(MemoryTest, RemoveDeletesOnceThenNotFound) {
  json e = save({});
  json keep = save({});
  EXPECT_EQ(remove(filter("c1", "alice"), e["id"]), json({{"deleted", 1}}));
  EXPECT_EQ(failure([&] { get(filter("c1"), e["id"]); }).code, AGENTRT_ERR_NOT_FOUND);
  Failure again = failure([&] { remove(filter("c1"), e["id"]); });
  EXPECT_EQ(again.code, AGENTRT_ERR_NOT_FOUND);
  EXPECT_EQ(again.message, "memory entry not found");
  EXPECT_EQ(get(filter("c1"), keep["id"])["id"], keep["id"]);
}

TEST_F(MemoryTest, UnknownLayerKeepsTheRequestedLayer) {
  json e = save({{"layer", "unknown"}, {"requested_layer", "dreams"}});
  EXPECT_EQ(e["layer"], "unknown");
  EXPECT_EQ(e["requested_layer"], "dreams");
  EXPECT_EQ(get(filter("c1"), e["id"])["requested_layer"], "dreams");
  EXPECT_EQ(list(filter("c1"), "unknown")["data"][0]["requested_layer"], "dreams");
  json plain = save({{"layer", "unknown"}});
  EXPECT_FALSE(plain.contains("requested_layer"));
}

TEST_F(MemoryTest, RequestedLayerWithAKnownLayerIsRefused) {
  Failure f = failure([&] { save({{"layer", "working"}, {"requested_layer", "dreams"}}); });
  EXPECT_EQ(f.code, AGENTRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(f.message.find("requested_layer"), std::string::npos);
}

TEST_F(MemoryTest, MalformedRequestsNameTheField) {
  struct Case {
    agentrt_json_call_fn fn;
    json request;
    std::string field;
  };
  json f = filter("c1");
  std::vector<Case> cases = {
      {table().save, {{"layer", "about_me"}, {"content", "x"}, {"actor", "a"}}, "cell"},
      {table().save,
       {{"cell", "c1"}, {"layer", "nope"}, {"content", "x"}, {"actor", "a"}},
       "layer"},
      {table().save,
       {{"cell", "c1"}, {"layer", "working"}, {"content", ""}, {"actor", "a"}},
       "content"},
      {table().save, {{"cell", "c1"}, {"layer", "working"}, {"content", "x"}}, "actor"},
      {table().save,
       {{"cell", "c1"}, {"layer", "working"}, {"content", "x"}, {"actor", "a"}, {"metadata", 3}},
       "metadata"},
      {table().list, with(f, {{"layer", "nope"}, {"limit", 5}}), "layer"},
      {table().list, with(f, {{"layer", "working"}, {"limit", 0}}), "limit"},
      {table().list, with(f, {{"layer", "working"}, {"limit", 501}}), "limit"},
      {table().list, with(f, {{"layer", "working"}, {"limit", 5}, {"actor", 7}}), "actor"},
      {table().clear_layer, with(f, {{"layer", "dreams"}}), "layer"},
      {table().count, {{"actor", "a"}}, "cell"},
      {table().search, with(f, {{"query", "x"}, {"limit", 101}}), "limit"},
      {table().search, with(f, {{"query", "x"}, {"limit", 5}, {"layers", {"dreams"}}}), "layers"},
      {table().search, with(f, {{"limit", 5}}), "query"},
      {table().delete_by_session, {{"cell", "c1"}}, "session_id"},
  };
  for (const Case& c : cases) {
    Failure failed = raw_failure(c.fn, c.request);
    EXPECT_EQ(failed.code, AGENTRT_ERR_INVALID_ARGUMENT) << c.request;
    EXPECT_NE(failed.message.find(c.field), std::string::npos) << failed.message;
  }
  EXPECT_EQ(failure([&] { memory->call_json(table().count, "[1]"); }).code,
            AGENTRT_ERR_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace agentrt::test
