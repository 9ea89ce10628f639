// The history cache answers every run as recent_history does from what the store holds
// now (appends, deleted and remade sessions, deleted cells, windows of any size), while
// reading from the store only what was stored since a session's last run.
#include "core/runs/history_cache.h"
#include "core/runs/context_window.h"
#include "core/sessions/session_store.h"
#include "tests/core/message_util.h"
#include "tests/core/temp_dir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

namespace agentrt::core {
namespace {

constexpr int64_t kWindows[] = {30, 200, 1000, 5000, 10'000'000};

class HistoryCacheTest : public ::testing::Test {
 protected:
  // As RunService does: the cache hears of every message stored.
  HistoryCacheTest() {
    sessions.on_messages_stored([this](const RunOutcome& outcome, std::vector<StoredMessage>&& m) {
      if (listening_) listening_->stored(outcome, std::move(m));
    });
  }
  void listen(HistoryCache& cache) { listening_ = &cache; }

  // Deletions as RunService and the cells' forget make them: committed, then forgotten.
  void remove_session(HistoryCache& cache, const std::string& cell, const std::string& session) {
    sessions.remove(cell, session);
    cache.forget(cell, session);
  }
  void remove_cell(HistoryCache& cache, const std::string& cell) {
    store.write([&](Connection& db) { SessionStore::remove_cell(db, cell); });
    cache.forget_cell(cell);
  }

  // Stores one run of `n` messages of pseudo-random sizes in the session.
  void append(const std::string& cell, const std::string& session, int n) {
    std::string id = "run_" + std::to_string(++runs_);
    RunRecord run{id, cell, session, "ada", "m", "running", "", "2026-11-26T00:00:00Z", "", 0, 0};
    RunOutcome outcome{id, cell, session, "end_turn", 0, 0, "[]", {}};
    outcome.continues = sessions.find(cell, session).has_value();
    for (int i = 0; i < n; ++i) {
      state_ = state_ * 1103515245u + 12345u;
      std::string text =
          session + " " + id + "." + std::to_string(i) + std::string((state_ >> 8) % 300, 'w');
      outcome.new_messages.push_back(
          test_util::message_of(i % 2 == 0 ? "user" : "assistant",
                                nlohmann::json::array({{{"type", "text"}, {"text", text}}})));
    }
    sessions.finish_run(outcome, &run);
  }

  // What a run on session "a" of "cell" is given with a window larger than the session.
  HistorySpan whole_of_a(HistoryCache& cache) {
    return cache.recent(sessions, "cell", "a", 10'000'000);
  }

  void expect_as_the_store(HistoryCache& cache, const std::string& cell, const std::string& session,
                           int64_t window) {
    std::vector<StoredMessage> want = recent_history(sessions, cell, session, window);
    HistorySpan got = cache.recent(sessions, cell, session, window);
    ASSERT_EQ(got.size(), want.size()) << cell << "/" << session << ", window " << window;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].role, want[i].role);
      EXPECT_EQ(got[i].content_text, want[i].content_text);
      EXPECT_EQ(got[i].tokens, want[i].tokens);
      EXPECT_EQ(got[i].seq, want[i].seq);
    }
  }

  test_util::TempDir tmp;
  StateStore store{tmp.path()};
  SessionStore sessions{store};

 private:
  HistoryCache* listening_ = nullptr;
  int runs_ = 0;
  uint32_t state_ = 11;
};

TEST_F(HistoryCacheTest, ARunOnALongSessionReadsNothingWhenItsMessagesCameThroughTheCache) {
  HistoryCache cache(32u << 20);
  listen(cache);
  for (int i = 0; i < 30; ++i) append("cell", "long", 100);
  expect_as_the_store(cache, "cell", "long", 5000);
  HistoryCache::Stats first = cache.stats();
  EXPECT_EQ(first.misses, 1u);
  EXPECT_GT(first.messages_read, 20u);
  append("cell", "long", 2);
  expect_as_the_store(cache, "cell", "long", 5000);
  HistoryCache::Stats second = cache.stats();
  EXPECT_EQ(second.hits, 1u);
  EXPECT_EQ(second.unread_hits, 1u);
  EXPECT_EQ(second.misses, 1u);
  EXPECT_EQ(second.messages_read, first.messages_read);
  // A smaller window comes from the entry as it is; a larger one reads the store again.
  expect_as_the_store(cache, "cell", "long", 200);
  EXPECT_EQ(cache.stats().hits, 2u);
  expect_as_the_store(cache, "cell", "long", 20000);
  EXPECT_EQ(cache.stats().misses, 2u);
}

// A run stores while another has the session's entry out (the second was refused as
// busy after reading its context): that entry may be behind, so its next use reads
// what is new, and the one after that reads nothing again.
TEST_F(HistoryCacheTest, AMessageStoredWhileTheEntryWasOutIsReadByItsNextUse) {
  HistoryCache cache(32u << 20);
  listen(cache);
  for (int i = 0; i < 5; ++i) append("cell", "s", 20);
  expect_as_the_store(cache, "cell", "s", 10'000'000);
  append("cell", "s", 2);
  cache.after_store_read([&] { append("cell", "s", 2); });
  EXPECT_EQ(cache.recent(sessions, "cell", "s", 10'000'000).size(), 102u);
  cache.after_store_read(nullptr);
  const HistoryCache::Stats out = cache.stats();
  EXPECT_EQ(out.unread_hits, 1u);
  expect_as_the_store(cache, "cell", "s", 10'000'000);
  EXPECT_EQ(cache.stats().messages_read - out.messages_read, 3u) << "newest, and the two";
  EXPECT_EQ(cache.stats().unread_hits, 1u);
  append("cell", "s", 2);
  expect_as_the_store(cache, "cell", "s", 10'000'000);
  EXPECT_EQ(cache.stats().unread_hits, 2u);
  EXPECT_EQ(cache.stats().messages_read - out.messages_read, 3u);
}

// Not forgotten here: the first run of the session made anew drops what was held.
TEST_F(HistoryCacheTest, ASessionDeletedAndMadeAnewUnderItsIdIsReadAgain) {
  HistoryCache cache(32u << 20);
  listen(cache);
  append("cell", "s", 40);
  expect_as_the_store(cache, "cell", "s", 10'000'000);
  ASSERT_TRUE(sessions.remove("cell", "s"));
  append("cell", "s", 3);
  expect_as_the_store(cache, "cell", "s", 10'000'000);
  EXPECT_EQ(cache.stats().misses, 2u);
  EXPECT_EQ(cache.stats().hits, 0u);
}

TEST_F(HistoryCacheTest, AnswersAsTheStoreThroughAppendsDeletionsAndWindows) {
  HistoryCache cache(32u << 20);
  listen(cache);
  const std::vector<std::pair<std::string, std::string>> all = {
      {"cell", "a"}, {"cell", "b"}, {"other", "a"}};
  uint32_t pick = 5;
  for (int step = 0; step < 240; ++step) {
    pick = pick * 1103515245u + 12345u;
    const auto& [cell, session] = all[(pick >> 8) % all.size()];
    switch ((pick >> 16) % 8) {
      case 0:
        remove_session(cache, cell, session);
        break;
      case 1:
        remove_cell(cache, cell);
        break;
      default:
        append(cell, session, 1 + static_cast<int>((pick >> 20) % 5));
    }
    if (step % 3 != 2) continue;  // a few changes between runs, as between real ones
    for (const auto& [c, s] : all)
      for (int64_t window : kWindows) expect_as_the_store(cache, c, s, window);
  }
  EXPECT_GT(cache.stats().hits, 100u);
}

TEST_F(HistoryCacheTest, EntriesGoOldestFirstPastTheBudgetAndAnswersStayRight) {
  HistoryCache cache(24 * 1024);
  listen(cache);
  for (const char* session : {"a", "b", "c"}) append("cell", session, 60);
  for (int round = 0; round < 3; ++round)
    for (const char* session : {"a", "b", "c"}) {
      expect_as_the_store(cache, "cell", session, 10'000'000);
      EXPECT_LE(cache.stats().bytes, 24u * 1024);
    }
}

TEST_F(HistoryCacheTest, AWindowLargerThanTheBudgetIsNotHeldAndPushesNothingOut) {
  HistoryCache cache(8 * 1024);
  listen(cache);
  append("cell", "small", 4);
  expect_as_the_store(cache, "cell", "small", 10'000'000);
  const size_t small = cache.stats().bytes;
  ASSERT_GT(small, 0u);
  append("cell", "large", 200);
  expect_as_the_store(cache, "cell", "large", 10'000'000);
  EXPECT_EQ(cache.stats().bytes, small);
  expect_as_the_store(cache, "cell", "small", 10'000'000);
  EXPECT_EQ(cache.stats().hits, 1u);
}

// A run's context holds the very messages the cache holds, not copies: on a long
// session of 1,600 messages, copying them into each run, moving them into its context
// and freeing them was 100-140 us of a /chat.
TEST_F(HistoryCacheTest, RunsShareTheHeldMessagesInsteadOfCopyingThem) {
  HistoryCache cache(32u << 20);
  listen(cache);
  append("cell", "a", 40);
  HistorySpan first = whole_of_a(cache);
  HistorySpan second = whole_of_a(cache);
  ASSERT_EQ(first.size(), 40u);
  ASSERT_EQ(second.size(), 40u);
  EXPECT_EQ(first.begin(), second.begin()) << "the second run was given a copy";
  const StoredMessage* held = &second[39];
  RunContext context = assemble_context({"", {}, second, {}}, 10'000'000, std::nullopt);
  ASSERT_EQ(context.size(), 40u);
  EXPECT_EQ(&context[39], held) << "the context copied the message";
}

// While a run holds its span, the session goes on: the cache then writes to a copy, and
// the run reads what it was given. Once no run holds them, the cache appends to the
// messages where they are.
TEST_F(HistoryCacheTest, ARunKeepsItsWindowWhileTheCacheGoesOnWithoutCopyingOnceItsDone) {
  HistoryCache cache(32u << 20);
  listen(cache);
  append("cell", "a", 10);
  HistorySpan held = whole_of_a(cache);
  const std::vector<StoredMessage> was(held.begin(), held.end());
  const StoredMessage* const address = held.begin();
  HistorySpan next;
  for (size_t run = 1; run <= 4; ++run) {  // enough to outgrow any room left in place
    append("cell", "a", 10);
    next = whole_of_a(cache);
    ASSERT_EQ(next.size(), 10 + 10 * run);
    for (size_t i = 0; i < was.size(); ++i) EXPECT_EQ(next[i].seq, was[i].seq);
    next = HistorySpan();  // that run ends
  }
  ASSERT_EQ(held.size(), 10u);
  EXPECT_EQ(held.begin(), address);
  for (size_t i = 0; i < was.size(); ++i) {
    EXPECT_EQ(held[i].seq, was[i].seq);
    EXPECT_EQ(held[i].content_text, was[i].content_text);
  }
  EXPECT_EQ(cache.stats().copies, 1u) << "copied though no run held the messages";
  held = HistorySpan();
  append("cell", "a", 2);
  EXPECT_EQ(whole_of_a(cache).size(), 52u);
  EXPECT_EQ(cache.stats().copies, 1u);
  expect_as_the_store(cache, "cell", "a", 10'000'000);
}

// Two runs' spans of the same messages, and a copy of one (a run's context keeps part
// of its window): the cache writes in place only once every one of them is gone, not
// when the first goes.
TEST_F(HistoryCacheTest, TheMessagesAreWrittenInPlaceOnlyOnceEverySpanOfThemIsGone) {
  HistoryCache cache(32u << 20);
  listen(cache);
  append("cell", "a", 10);
  HistorySpan first = whole_of_a(cache);
  HistorySpan second = whole_of_a(cache);
  ASSERT_EQ(first.begin(), second.begin());
  HistorySpan part = second.without_first(4);
  const std::vector<StoredMessage> was(part.begin(), part.end());
  first = HistorySpan();
  second = HistorySpan();
  append("cell", "a", 10);
  EXPECT_EQ(whole_of_a(cache).size(), 20u);
  EXPECT_EQ(cache.stats().copies, 1u) << "a span's copy was still out";
  ASSERT_EQ(part.size(), was.size());
  for (size_t i = 0; i < was.size(); ++i) {
    EXPECT_EQ(part[i].seq, was[i].seq);
    EXPECT_EQ(part[i].content_text, was[i].content_text);
  }
  part = HistorySpan();
  append("cell", "a", 2);
  EXPECT_EQ(whole_of_a(cache).size(), 22u);
  EXPECT_EQ(cache.stats().copies, 1u) << "copied though no span was out";
  expect_as_the_store(cache, "cell", "a", 10'000'000);
}

// limits.history_cache_mb 0: every run reads its window from the store.
TEST_F(HistoryCacheTest, ACacheOfNoBytesHoldsNothingAndAnswersAsTheStore) {
  HistoryCache cache(0);
  listen(cache);
  append("cell", "a", 10);
  for (int round = 0; round < 3; ++round) {
    expect_as_the_store(cache, "cell", "a", 10'000'000);
    append("cell", "a", 2);
  }
  EXPECT_EQ(cache.stats().bytes, 0u);
  EXPECT_EQ(cache.stats().hits, 0u);
  EXPECT_EQ(cache.stats().misses, 3u);
}

TEST_F(HistoryCacheTest, ADeletedSessionOrCellLeavesNothingHeld) {
  HistoryCache cache(32u << 20);
  listen(cache);
  for (const char* session : {"a", "b"}) {
    append("cell", session, 10);
    expect_as_the_store(cache, "cell", session, 10'000'000);
  }
  append("cell-2", "a", 10);
  expect_as_the_store(cache, "cell-2", "a", 10'000'000);
  const size_t all = cache.stats().bytes;
  cache.forget("cell", "a");
  const size_t without_a = cache.stats().bytes;
  EXPECT_LT(without_a, all);
  cache.forget_cell("cell");
  EXPECT_GT(cache.stats().bytes, 0u) << "another cell's session went too";
  EXPECT_LT(cache.stats().bytes, without_a);
  cache.forget_cell("cell-2");
  EXPECT_EQ(cache.stats().bytes, 0u);
  expect_as_the_store(cache, "cell", "b", 10'000'000);
  EXPECT_EQ(cache.stats().misses, 4u);
}

// A session or cell deleted while a run reads it (the deletion commits and forgets
// between the run's read and its putting the entry back): nothing of it stays held,
// whether the run read the whole window or caught up on an entry, and a session made
// anew under the same id afterwards is held again.
TEST_F(HistoryCacheTest, ASessionOrCellDeletedWhileARunReadsItIsNotHeldAfter) {
  HistoryCache cache(32u << 20);
  listen(cache);
  append("cell", "a", 10);
  append("cell", "b", 10);
  append("cell-2", "a", 10);

  cache.after_store_read([&] {
    sessions.remove("cell", "a");
    cache.forget("cell", "a");
  });
  EXPECT_FALSE(cache.recent(sessions, "cell", "a", 10'000'000).empty());  // read whole
  cache.after_store_read(nullptr);
  EXPECT_EQ(cache.stats().bytes, 0u) << "the deleted session's window was put back";

  expect_as_the_store(cache, "cell", "b", 10'000'000);
  expect_as_the_store(cache, "cell-2", "a", 10'000'000);
  const size_t other_cell = [&] {
    HistoryCache alone(32u << 20);
    alone.recent(sessions, "cell-2", "a", 10'000'000);
    return alone.stats().bytes;
  }();
  append("cell", "b", 2);
  cache.after_store_read([&] {
    store.write([&](Connection& db) { SessionStore::remove_cell(db, "cell"); });
    cache.forget_cell("cell");
  });
  EXPECT_EQ(cache.recent(sessions, "cell", "b", 10'000'000).size(), 12u);  // caught up
  cache.after_store_read(nullptr);
  EXPECT_EQ(cache.stats().hits, 1u);
  EXPECT_EQ(cache.stats().bytes, other_cell) << "the deleted cell's session was put back";

  append("cell", "a", 4);
  expect_as_the_store(cache, "cell", "a", 10'000'000);
  EXPECT_GT(cache.stats().bytes, other_cell) << "a session made anew is not held";
  append("cell", "a", 2);
  const uint64_t hits = cache.stats().hits;
  expect_as_the_store(cache, "cell", "a", 10'000'000);
  EXPECT_EQ(cache.stats().hits, hits + 1);
}

// A continued run takes its session's owner from the entry instead of the session's
// row, once a lookup gave it; a deletion takes it away, and a lookup from before a
// deletion is not kept (the session it read may be gone, its id another's now).
TEST_F(HistoryCacheTest, ASessionsOwnerIsHeldOnceALookupGaveItAndGoesWithADeletion) {
  HistoryCache cache(32u << 20);
  listen(cache);
  append("cell", "s", 4);
  const uint64_t before = cache.deletions();
  cache.remember_owner("cell", "s", "ada", before);
  EXPECT_FALSE(cache.owner("cell", "s")) << "kept without an entry";
  cache.recent(sessions, "cell", "s", 10'000'000);
  cache.remember_owner("cell", "s", "ada", before);
  EXPECT_EQ(cache.owner("cell", "s"), "ada");
  EXPECT_FALSE(cache.owner("cell-2", "s"));
  append("cell", "s", 2);
  cache.recent(sessions, "cell", "s", 10'000'000);
  EXPECT_EQ(cache.owner("cell", "s"), "ada") << "lost on the next run";

  remove_session(cache, "cell", "s");
  EXPECT_FALSE(cache.owner("cell", "s"));
  append("cell", "s", 2);
  const uint64_t stale = cache.deletions();
  remove_session(cache, "cell", "another");
  cache.recent(sessions, "cell", "s", 10'000'000);
  cache.remember_owner("cell", "s", "ada", stale);
  EXPECT_FALSE(cache.owner("cell", "s")) << "a lookup from before a deletion was kept";
  cache.remember_owner("cell", "s", "ada", cache.deletions());
  EXPECT_EQ(cache.owner("cell", "s"), "ada");
  remove_cell(cache, "cell");
  EXPECT_FALSE(cache.owner("cell", "s"));
}

// Runs on many sessions at once while their sessions grow: every answer is a run of its
// session's messages without a gap, and the answers once nothing moves are the store's.
TEST_F(HistoryCacheTest, ConcurrentRunsGetWholeRunsOfTheirSessionsMessages) {
  HistoryCache cache(64 * 1024);  // small, so that entries also go and come back
  listen(cache);
  const std::vector<std::string> names = {"s0", "s1", "s2", "s3", "s4", "s5"};
  for (const auto& name : names) append("cell", name, 20);
  std::vector<std::vector<std::pair<size_t, std::vector<int64_t>>>> answers(4);
  std::vector<std::thread> readers;
  for (size_t t = 0; t < answers.size(); ++t)
    readers.emplace_back([&, t] {
      for (size_t i = 0; i < 300; ++i) {
        const size_t session = (t * 7 + i) % names.size();
        std::vector<int64_t> seqs;
        const int64_t window = 500 + 100 * static_cast<int64_t>(t);
        for (const StoredMessage& m : cache.recent(sessions, "cell", names[session], window))
          seqs.push_back(m.seq);
        answers[t].emplace_back(session, std::move(seqs));
      }
    });
  for (int i = 0; i < 60; ++i) append("cell", names[static_cast<size_t>(i) % names.size()], 2);
  for (auto& r : readers) r.join();
  std::vector<std::vector<int64_t>> stored(names.size());
  for (size_t n = 0; n < names.size(); ++n) {
    sessions.history_newest_first("cell", names[n], [&](StoredMessage&& m) {
      stored[n].insert(stored[n].begin(), m.seq);
      return true;
    });
  }
  for (const auto& of_thread : answers)
    for (const auto& [session, seqs] : of_thread) {
      ASSERT_FALSE(seqs.empty());
      const auto& all = stored[session];
      auto at = std::find(all.begin(), all.end(), seqs.front());
      ASSERT_NE(at, all.end());
      ASSERT_LE(seqs.size(), static_cast<size_t>(all.end() - at));
      EXPECT_TRUE(std::equal(seqs.begin(), seqs.end(), at)) << "a gap in " << names[session];
    }
  for (const auto& name : names)
    for (int64_t window : kWindows) expect_as_the_store(cache, "cell", name, window);
}

}  // namespace
}  // namespace agentrt::core
