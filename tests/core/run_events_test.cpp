// A run's events are serialised once, as text: that text must be byte for byte what
// nlohmann's dump of the same event gives (sorted keys, its escaping), because SSE
// clients, followers and the store all see it; and /chat, which answers from the run's
// summary rather than from its events, must still agree with them.
#include "core/domain/errors.h"
#include "core/domain/json_text.h"
#include "core/runs/event_text.h"
#include "core/runs/live_runs.h"
#include "core/runs/run_service.h"
#include "tests/core/run_service_fixture.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>

namespace agentrt::core {
namespace {

using nlohmann::json;

// What SSE wrote before events were kept as text: the json object's dump.
std::string dumped(const json& event) {
  return event.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Contents that exercise every branch of the escaping: quotes, backslashes, the short
// escapes, other control characters (NUL included) as \u00XX, DEL and non-ASCII UTF-8
// (2, 3 and 4 bytes) left as they are, and invalid UTF-8 replaced.
const std::vector<std::string>& awkward_contents() {
  static const std::vector<std::string> contents = {
      "plain",
      "say \"hi\" to C:\\dir\\ and /slash/",
      std::string("\b\f\n\r\t\x01\x1f\x7f", 8) + std::string(1, '\0') + "end",
      "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80",
      "bad \xff byte, cut \xe6\x97",
      ""};
  return contents;
}

TEST(EventText, DeltaTextIsTheDumpOfTheSameEvent) {
  DeltaText delta_text;
  int64_t seq = 1;
  for (const std::string& content : awkward_contents()) {
    json event = {{"type", "stream_delta"}, {"content", content}, {"seq", seq}};
    EXPECT_EQ(delta_text(content, seq), dumped(event)) << json(content).dump();
    seq = seq * 1000 + 7;
  }
  // Pinned, so that the comparison above cannot pass by both sides changing.
  EXPECT_EQ(delta_text(std::string("q\"b\\c\x01\n\xc3\xa9", 9), 12),
            "{\"content\":\"q\\\"b\\\\c\\u0001\\n\xc3\xa9\",\"seq\":12,\"type\":\"stream_delta\"}");
}

// The events every run has are written without a JSON object (json_text.h); their
// text must still be the dump of the object they stand for.
TEST(EventText, RunStartErrorAndDoneAreTheDumpOfTheSameEvents) {
  for (const std::string& text : awkward_contents()) {
    json start = {{"type", "run_start"}, {"run_id", "run_" + text}, {"session_id", text},
                  {"model", text},       {"timestamp", text},       {"seq", 1}};
    EXPECT_EQ(run_start_text("run_" + text, text, text, text, 1), dumped(start));
    json error = {{"type", "error"}, {"code", text}, {"message", text}, {"seq", 22}};
    EXPECT_EQ(error_event_text(text, text, 22), dumped(error));
    json done = {{"type", "done"},
                 {"reason", text},
                 {"run_id", text},
                 {"seq", 333},
                 {"usage", {{"input_tokens", -1}, {"output_tokens", int64_t{1} << 40}}}};
    EXPECT_EQ(done_text(text, text, -1, int64_t{1} << 40, 333), dumped(done));
  }
  EXPECT_EQ(done_text("end_turn", "r", 3, 4, 5),
            R"({"reason":"end_turn","run_id":"r","seq":5,"type":"done",)"
            R"("usage":{"input_tokens":3,"output_tokens":4}})");
}

TEST(JsonText, WritesWhatNlohmannDumps) {
  for (const std::string& text : awkward_contents()) {
    std::string out;
    append_json_string(out, text);
    EXPECT_EQ(out, dumped(json(text))) << json(text).dump();
  }
  const json values = {nullptr,
                       true,
                       1.5,
                       -7,
                       uint64_t{1} << 63,
                       "x\xff",
                       json::array({1, "a"}),
                       json::object({{"b", 1}, {"a", 2}})};
  for (const json& value : values) {
    std::string out;
    append_json_value(out, value);
    EXPECT_EQ(out, dumped(value));
  }
  std::string out;
  JsonObjectText object(out);
  object.integer("a", 1).string("b", "\"").value("c", json::array());
  object.member("d") += "{}";
  object.close();
  EXPECT_EQ(out, R"({"a":1,"b":"\"","c":[],"d":{}})");
}

// append_json_string is our own escaper (it was nlohmann's serializer): compared with
// nlohmann's dump on every byte, every pair of bytes, every sequence of up to four
// bytes drawn from the bytes where UTF-8's rules change, and random texts.
TEST(JsonText, EscapesEveryByteSequenceAsNlohmannDumpsIt) {
  auto check = [](const std::string& text) {
    std::string out;
    append_json_string(out, text);
    const std::string expected = dumped(json(text));
    if (out == expected) return true;
    ADD_FAILURE() << "text " << json(text).dump(-1, ' ', true, json::error_handler_t::replace)
                  << ": " << out << " against " << expected;
    return false;
  };
  for (int a = 0; a < 256; ++a)
    for (int b = 0; b < 256; ++b)
      if (!check({static_cast<char>(a), static_cast<char>(b)})) return;
  const std::string edges(
      "\x00\x1f\x20\x22\x41\x5c\x7f\x80\x8f\x90\x9f\xa0\xbf\xc0\xc1\xc2\xdf\xe0\xe1\xed\xee"
      "\xef\xf0\xf3\xf4\xf5\xff",
      27);
  for (char a : edges)
    for (char b : edges)
      for (char c : edges) {
        if (!check({a, b, c})) return;
        if (static_cast<unsigned char>(a) < 0xc2 || static_cast<unsigned char>(a) > 0xf4) continue;
        for (char d : edges)  // four bytes only from a lead: the rest is covered shorter
          if (!check({a, b, c, d})) return;
      }
  uint32_t state = 12345;
  auto next = [&state] { return state = state * 1103515245u + 12345u; };
  for (int i = 0; i < 20000; ++i) {
    std::string text(next() % 40, ' ');
    for (char& ch : text) {
      const uint32_t r = next() >> 8;
      ch = static_cast<char>(r % 4 == 0 ? edges[(r >> 2) % edges.size()] : r >> 2);
    }
    if (!check(text)) return;
  }
}

// append_json_value writes containers, strings and integers itself: compared with
// nlohmann's dump on 3,000 random documents nested up to four deep.
TEST(JsonText, WritesEveryValueAsNlohmannDumpsIt) {
  uint32_t state = 99;
  auto next = [&state] { return state = state * 1103515245u + 12345u; };
  std::function<json(int)> document = [&](int depth) -> json {
    switch ((next() >> 8) % (depth > 0 ? 9 : 7)) {
      case 0:
        return nullptr;
      case 1:
        return (next() >> 8) % 2 == 0;
      case 2:
        return static_cast<int64_t>(next()) - (int64_t{1} << 31) * static_cast<int64_t>(next() % 3);
      case 3:
        return std::numeric_limits<uint64_t>::max() - next();
      case 4:
        return static_cast<double>(next() % 100000) / 64.0;
      case 5:
        return awkward_contents()[(next() >> 8) % awkward_contents().size()];
      case 6: {
        std::string bytes(next() % 12, ' ');
        for (char& c : bytes) c = static_cast<char>(next() >> 12);
        return bytes;
      }
      case 7: {
        json array = json::array();
        for (uint32_t n = next() % 5; n > 0; --n) array.push_back(document(depth - 1));
        return array;
      }
      default: {
        json object = json::object();
        for (uint32_t n = next() % 5; n > 0; --n)
          object[awkward_contents()[(next() >> 8) % awkward_contents().size()] +
                 std::to_string(n)] = document(depth - 1);
        return object;
      }
    }
  };
  for (int i = 0; i < 3000; ++i) {
    const json value = document(4);
    std::string out;
    append_json_value(out, value);
    ASSERT_EQ(out, dumped(value)) << "document " << i;
  }
}

TEST(EventText, ALiveRunKeepsAndDeliversTheDumpOfEachEvent) {
  LiveRuns registry;
  auto run = registry.start("r1", "c", "s", "a");
  std::vector<json> events = {{{"type", "run_start"}, {"run_id", "r1"}, {"model", "m\u00e9"}}};
  std::vector<std::string> returned = {run->append(events[0])};
  for (const std::string& content : awkward_contents()) {
    returned.push_back(run->append_delta(content));
    events.push_back({{"type", "stream_delta"}, {"content", content}});
  }
  events.push_back({{"type", "done"}, {"usage", {{"input_tokens", 3}, {"output_tokens", 4}}}});
  returned.push_back(run->append(events.back()));
  run->finish();

  json array = json::array();
  std::vector<std::string> expected;
  for (size_t i = 0; i < events.size(); ++i) {
    events[i]["seq"] = static_cast<int64_t>(i + 1);
    array.push_back(events[i]);
    expected.push_back(dumped(events[i]));
  }
  EXPECT_EQ(returned, expected);
  EXPECT_EQ(run->events_json(), dumped(array));

  std::vector<std::string> followed;
  std::vector<int64_t> seqs;
  auto collect = [&](const std::string& event, int64_t seq) {
    followed.push_back(event);
    seqs.push_back(seq);
    return true;
  };
  run->follow(
      0, collect, [] { return true; }, std::chrono::milliseconds(10));
  EXPECT_EQ(followed, expected);
  followed.clear();
  run->follow(
      5, collect, [] { return true; }, std::chrono::milliseconds(10));
  EXPECT_EQ(followed, std::vector<std::string>(expected.begin() + 5, expected.end()));
  EXPECT_EQ(seqs.back(), static_cast<int64_t>(expected.size())) << "each event with its seq";
  EXPECT_EQ(seqs.front(), 1);
}

class Runs : public RunServiceFixture {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(
        start(std::string(AGENTRT_TEST_BUNDLED_DIR) + "/agentrt-echo.so", "echo"));
  }
  static json body(const std::string& text) {
    return {{"model", "echo"},
            {"messages", {{{"role", "user"}, {"content", {{{"type", "text"}, {"text", text}}}}}}}};
  }
  // The stored events of a run, as a follower of the finished run receives them.
  std::vector<std::string> replayed(const std::string& run_id) {
    RecordingSink sink;
    runs->follow("cell", admin, run_id, 0, sink, std::chrono::milliseconds(10));
    return sink.events;
  }

  const std::string awkward = "say \"hi\" \\ caf\xc3\xa9 \x01\n \xf0\x9f\x98\x80 end";
  Principal admin{"tok", "admin", std::nullopt, true, std::nullopt};
};

TEST_F(Runs, AFinishedRunReplaysTheTextsItStreamed) {
  PreparedRun run = runs->prepare("cell", admin, body(awkward).dump());
  RecordingSink sink;
  RunSummary summary = runs->execute(run, sink);
  ASSERT_GT(sink.events.size(), 4u) << "run_start, several deltas, done";
  EXPECT_EQ(replayed(run.live->id), sink.events);
  std::string text;
  for (const std::string& event : sink.events) {
    json parsed = json::parse(event);
    EXPECT_EQ(dumped(parsed), event) << "every event is the dump of what it parses to";
    if (parsed["type"] == "stream_delta") text += parsed["content"].get<std::string>();
  }
  EXPECT_EQ(text, awkward);
  EXPECT_EQ(summary.text, awkward);
}

// `done` says the run ended: were it sent before the run is stored and its session let
// go, a client sending its next turn on reading it would now and then be refused as busy,
// and a read of the session could miss the turn.
TEST_F(Runs, WhoeverActsOnDoneFindsTheRunStoredAndTheSessionFree) {
  json first = body("first turn");
  first["session_id"] = "next-turn";
  PreparedRun run = runs->prepare("cell", admin, first.dump());
  struct ActOnDone : RunSink {
    std::function<void()> act;
    bool send(const std::string& event) override {
      if (json::parse(event)["type"] == "done") act();
      return true;
    }
  } sink;
  std::string status, next_turn;
  sink.act = [&, run_id = run.live->id] {
    status = sessions.find_run("cell", run_id)->status;
    json second = body("second turn");
    second["session_id"] = "next-turn";
    try {
      next_turn = json::parse(runs->chat("cell", admin, second.dump()))["reason"];
    } catch (const DomainError& e) {
      next_turn = e.what();
    }
  };
  runs->execute(run, sink);
  EXPECT_EQ(status, "done");
  EXPECT_EQ(next_turn, "end_turn");
  EXPECT_EQ(sessions.messages("cell", "next-turn", PageRequest{})["data"].size(), 4u);
}

TEST_F(Runs, ChatAnswersWhatTheStoredEventsSay) {
  const std::string answer_text = runs->chat("cell", admin, body(awkward).dump());
  json answer = json::parse(answer_text);
  EXPECT_EQ(dumped(answer), answer_text) << "the answer is written as nlohmann would dump it";
  const std::string run_id = answer["run_id"];
  std::string text;
  json done;
  for (const std::string& event : replayed(run_id)) {
    json parsed = json::parse(event);
    if (parsed["type"] == "stream_delta") text += parsed["content"].get<std::string>();
    if (parsed["type"] == "done") done = parsed;
  }
  json expected = {{"response", text},
                   {"run_id", run_id},
                   {"model", "echo"},
                   {"usage", done["usage"]},
                   {"session_id", sessions.find_run("cell", run_id)->session_id},
                   {"reason", done["reason"]}};
  EXPECT_EQ(answer.dump(), expected.dump());
  EXPECT_EQ(answer["response"], awkward);
  EXPECT_EQ(answer["reason"], "end_turn");
}

}  // namespace
}  // namespace agentrt::core
