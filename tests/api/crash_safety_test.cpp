// Crash safety: agentd SIGKILLed at random moments while clients save memory, take /chat
// turns and stream /run, and restarted on the same data dir each time. Whatever agentd
// acknowledged is there after every kill, each of its stores passes SQLite's integrity
// check, and every stream a kill cut replays to a `done`.
#include "tests/api/conversation_client.h"
#include "tests/api/store_connection.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <random>
#include <thread>

namespace agentrt::test {
namespace {

using nlohmann::json;

// What the clients were told was kept, and the streams that ended without a `done`.
struct Acknowledged {
  std::mutex mutex;
  std::vector<std::pair<std::string, std::string>> memories;  // id, content
  std::vector<std::string> chat_runs;
  std::vector<std::string> finished_streams;
  std::vector<std::string> cut_streams;  // run ids whose stream the kill cut
  int failed_requests = 0;               // refused or cut by the kill: not acknowledged
};

void save_memories(uint16_t port, const std::string& token, int writer, Acknowledged& acked,
                   const std::atomic<bool>& stop) {
  for (int n = 0; !stop; ++n) {
    std::string content = "memory " + std::to_string(writer) + "-" + std::to_string(n);
    HttpResponse response;
    try {
      response = http_request(port, "POST", "/memory",
                              json{{"layer", "about_me"}, {"content", content}}.dump(),
                              auth_headers(token));
    } catch (const std::exception&) {
    }
    std::lock_guard lock(acked.mutex);
    if (response.status == 201)
      acked.memories.emplace_back(response.json().value("id", ""), content);
    else
      ++acked.failed_requests;
  }
}

void take_chat_turns(uint16_t port, const std::string& token, Acknowledged& acked,
                     const std::atomic<bool>& stop) {
  for (int n = 0; !stop; ++n) {
    HttpResponse response;
    try {
      response = http_request(port, "POST", "/chat", run_body("turn " + std::to_string(n)).dump(),
                              auth_headers(token));
    } catch (const std::exception&) {
    }
    std::lock_guard lock(acked.mutex);
    if (response.status == 200)
      acked.chat_runs.push_back(response.json().value("run_id", ""));
    else
      ++acked.failed_requests;
  }
}

void stream_runs(uint16_t port, const std::string& token, Acknowledged& acked,
                 const std::atomic<bool>& stop) {
  while (!stop) {
    std::string run_id;
    bool done = false;
    try {
      SseClient stream(port, "POST", "/run",
                       {{"Authorization", "Bearer " + token}, {"Content-Type", "application/json"}},
                       run_body("a stream of several words to echo back").dump());
      while (auto event = stream.next(std::chrono::seconds(5))) {
        if ((*event)["type"] == "run_start") run_id = (*event)["run_id"];
        if ((*event)["type"] == "done") done = true;
      }
    } catch (const std::exception&) {
    }
    std::lock_guard lock(acked.mutex);
    if (done)
      acked.finished_streams.push_back(run_id);
    else if (!run_id.empty())
      acked.cut_streams.push_back(run_id);
    else
      ++acked.failed_requests;
  }
}

// The events of run `id` replayed from the store: the last one's type and reason.
std::pair<std::string, std::string> replayed_end(const AgentdProcess& agentd,
                                                 const std::string& admin, const std::string& id) {
  SseClient replay(agentd.port(), "GET", "/runs/" + id + "/events",
                   {{"Authorization", "Bearer " + admin}});
  if (replay.status() != 200) return {"status " + std::to_string(replay.status()), ""};
  auto events = replay.rest(std::chrono::seconds(5));
  if (events.empty()) return {"no events", ""};
  return {events.back().value("type", ""), events.back().value("reason", "")};
}

void expect_integrity(const std::string& data_dir) {
  int stores = 0;
  for (const auto& entry : std::filesystem::directory_iterator(data_dir)) {
    if (entry.path().extension() != ".db") continue;
    ++stores;
    sqlite3_stmt* statement = nullptr;
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2(entry.path().c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, nullptr), SQLITE_OK);
    std::string verdict;
    while (sqlite3_step(statement) == SQLITE_ROW)
      verdict += reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
    sqlite3_finalize(statement);
    sqlite3_close(db);
    EXPECT_EQ(verdict, "ok") << entry.path();
  }
  EXPECT_GE(stores, 3) << "auth, state and memory stores";
}

TEST(CrashSafety, EveryAcknowledgedWriteOutlivesRandomKills) {
  TempDir dir;
  const std::string data = dir.path() + "/data";
  // A slow echo keeps streams open long enough for kills to land inside them.
  AgentdOptions options = slow_echo(3, dir, json::object(), {"--data-dir", data});
  options.private_data_dir = false;
  std::string admin;
  std::string token;
  Acknowledged acked;
  std::mt19937 random(std::random_device{}());
  constexpr int kKills = 6;
  for (int kill = 0; kill < kKills; ++kill) {
    AgentdProcess agentd(options);
    if (admin.empty()) {
      admin = first_admin_token(agentd);
      token = issue_token(agentd, admin, {{"ttl", "1h"}, {"actor", "writer"}})["token"];
    }
    std::atomic<bool> stop{false};
    std::vector<std::thread> clients;
    for (int writer = 0; writer < 2; ++writer)
      clients.emplace_back(save_memories, agentd.port(), token, writer + 2 * kill, std::ref(acked),
                           std::cref(stop));
    clients.emplace_back(take_chat_turns, agentd.port(), token, std::ref(acked), std::cref(stop));
    clients.emplace_back(stream_runs, agentd.port(), token, std::ref(acked), std::cref(stop));
    std::this_thread::sleep_for(std::chrono::milliseconds(150 + random() % 350));
    ASSERT_EQ(agentd.stop(SIGKILL), 128 + SIGKILL);
    stop = true;
    for (auto& client : clients) client.join();
  }

  AgentdProcess agentd(options);
  ASSERT_GE(acked.memories.size(), 20u) << "the writers made too little progress to prove much";
  ASSERT_FALSE(acked.chat_runs.empty());
  for (const auto& [id, content] : acked.memories) {
    auto entry = call(agentd, "GET", "/memory/" + id, token);
    ASSERT_EQ(entry.status, 200) << id << " was acknowledged and is gone";
    EXPECT_EQ(entry.json()["content"], content);
  }
  for (const auto& id : acked.chat_runs)
    EXPECT_EQ(replayed_end(agentd, admin, id),
              std::make_pair(std::string("done"), std::string("end_turn")))
        << id;
  for (const auto& id : acked.finished_streams)
    EXPECT_EQ(replayed_end(agentd, admin, id).first, "done") << id;
  for (const auto& id : acked.cut_streams)
    EXPECT_EQ(replayed_end(agentd, admin, id).first, "done") << "cut stream " << id;
  ASSERT_EQ(agentd.stop(), 0);
  expect_integrity(data);
  RecordProperty("acknowledged_memories", static_cast<int>(acked.memories.size()));
  RecordProperty("acknowledged_chats", static_cast<int>(acked.chat_runs.size()));
  RecordProperty("cut_streams", static_cast<int>(acked.cut_streams.size()));
}

}  // namespace
}  // namespace agentrt::test
