// Requests racing a session's deletion: memory written for the session while it goes, a
// follower of its run as the run goes, and the same deletion sent several times at once.
#include "tests/api/conversation_client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace agentrt::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

void store_a_turn(const AgentdProcess& agentd, const std::string& admin,
                  const std::string& session) {
  ASSERT_EQ(call(agentd, "POST", "/chat", admin, run_body("hi", {{"session_id", session}})).status,
            200);
}

json session_memory(const std::string& session) {
  return {{"layer", "session"}, {"session_id", session}, {"content", "noted"}};
}

// Saves checked against the session before its deletion and written after the
// deletion cleared its memory were kept (10 of 10 tries), for a session made again
// under the id to inherit.
TEST(SessionDeletionRace, MemoryWrittenWhileTheSessionGoesGoesWithIt) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  for (int trial = 0; trial < 3; ++trial) {
    const std::string session = "s" + std::to_string(trial);
    ASSERT_NO_FATAL_FAILURE(store_a_turn(agentd, admin, session));
    for (int i = 0; i < 200; ++i)  // so that the deletion takes a while
      call(agentd, "POST", "/memory", admin, session_memory(session));
    std::atomic<bool> stop{false};
    std::vector<std::thread> writers;
    for (int i = 0; i < 4; ++i)
      writers.emplace_back([&] {
        while (!stop) call(agentd, "POST", "/memory", admin, session_memory(session));
      });
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(call(agentd, "DELETE", "/sessions/" + session, admin).status, 204);
    stop = true;
    for (std::thread& t : writers) t.join();
    const json left = call(agentd, "GET", "/memory/counts?session_id=" + session, admin).json();
    EXPECT_EQ(left.value("session", -1), 0) << session << ": " << left;
  }
}

// Several deletions of one session at once, while a run holds it: one is answered 204,
// the others 404, as for every other resource (up to 5 answered 204).
TEST(SessionDeletionRace, OneOfSeveralDeletionsAtOnceDeletes) {
  TempDir dir;
  AgentdProcess agentd(slow_echo(50, dir));
  const std::string admin = first_admin_token(agentd);
  for (int trial = 0; trial < 3; ++trial) {
    const std::string session = "busy" + std::to_string(trial);
    ASSERT_NO_FATAL_FAILURE(store_a_turn(agentd, admin, session));
    auto stream = open_run(agentd, admin, run_body("a long answer", {{"session_id", session}}));
    ASSERT_TRUE(stream->next());  // run_start: the run holds the session
    std::atomic<int> deleted{0}, missing{0};
    std::vector<std::thread> deletions;
    for (int i = 0; i < 6; ++i)
      deletions.emplace_back([&] {
        const int status = call(agentd, "DELETE", "/sessions/" + session, admin).status;
        if (status == 204) ++deleted;
        if (status == 404) ++missing;
      });
    for (std::thread& t : deletions) t.join();
    EXPECT_EQ(deleted, 1) << session;
    EXPECT_EQ(missing, 5) << session;
  }
}

// A follower of a run whose session is deleted as it asks: the whole stream, or 404;
// never a 200 without run_start and done (4 of 15 tries).
TEST(SessionDeletionRace, AFollowerGetsTheWholeRunOrA404) {
  TempDir dir;
  AgentdProcess agentd(slow_echo(20, dir));
  const std::string admin = first_admin_token(agentd);
  int empty = 0, polls = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const std::string session = "f" + std::to_string(trial);
    auto stream = open_run(agentd, admin,
                           run_body("a few words to echo back slowly", {{"session_id", session}}));
    const auto start = stream->next();
    ASSERT_TRUE(start);
    const std::string events = "/runs/" + (*start)["run_id"].get<std::string>() + "/events";
    std::atomic<bool> stop{false};
    std::mutex mutex;
    std::vector<std::thread> followers;
    for (int i = 0; i < 6; ++i)
      followers.emplace_back([&] {
        while (!stop) {
          const HttpResponse r = call(agentd, "GET", events, admin);
          std::lock_guard<std::mutex> lock(mutex);
          ++polls;
          if (r.status == 200 && r.body.find("\"done\"") == std::string::npos) {
            if (empty == 0) ADD_FAILURE() << "a stream without done: [" << r.body << "]";
            ++empty;
          }
        }
      });
    std::this_thread::sleep_for(60ms);
    call(agentd, "DELETE", "/sessions/" + session, admin);
    std::this_thread::sleep_for(60ms);
    stop = true;
    for (std::thread& t : followers) t.join();
  }
  EXPECT_EQ(empty, 0) << "in " << polls << " polls";
}

}  // namespace
}  // namespace agentrt::test
