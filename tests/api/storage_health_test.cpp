// GET /health while storage fails: it must not say ok while every write fails on a full
// disk, or while memory.db is damaged. Writes failing (here: past a file size limit set
// on the running agentd, which fails them as a full disk does) make it degraded until a
// write takes again; damage keeps it degraded.
#include "tests/api/admin_client.h"
#include "tests/api/store_connection.h"

#include <sys/resource.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace agentrt::test {
namespace {

using nlohmann::json;

void limit_file_size(pid_t pid, rlim_t bytes) {
  rlimit limit{bytes, bytes};
  rlimit old{};
  ASSERT_EQ(::prlimit(pid, RLIMIT_FSIZE, nullptr, &old), 0);
  limit.rlim_max = old.rlim_max;
  if (bytes > old.rlim_max) limit.rlim_cur = old.rlim_max;
  ASSERT_EQ(::prlimit(pid, RLIMIT_FSIZE, &limit, nullptr), 0);
}

// /health's status once it settles: it probes a failing store at most once a second.
int health_within(const AgentdProcess& agentd, int wanted, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = agentd.request("GET", "/health").status;
  while (status != wanted && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    status = agentd.request("GET", "/health").status;
  }
  return status;
}

const json kChat = {
    {"model", "echo"},
    {"messages", {{{"role", "user"}, {"content", {{{"type", "text"}, {"text", "x"}}}}}}}};

TEST(StorageHealth, DegradedWhileWritesFailAndOkOnceTheyTakeAgain) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  const json entry = {{"layer", "working"}, {"content", "a fact"}};
  ASSERT_EQ(call(agentd, "POST", "/memory", admin, entry).status, 201);
  ASSERT_EQ(call(agentd, "POST", "/chat", admin, kChat).status, 200);

  limit_file_size(agentd.pid(), 1024);  // below any WAL frame's offset
  EXPECT_GE(call(agentd, "POST", "/memory", admin, entry).status, 500);
  const HttpResponse degraded = agentd.request("GET", "/health");
  EXPECT_EQ(degraded.status, 503) << degraded.body;
  EXPECT_EQ(degraded.json()["status"], "degraded");
  EXPECT_EQ(degraded.json()["storage"], "unavailable");
  EXPECT_GE(call(agentd, "POST", "/chat", admin, kChat).status, 500);
  // Still degraded a probe later: the probe writes, and finds the disk as full.
  EXPECT_EQ(health_within(agentd, 200, std::chrono::seconds(2)), 503);

  limit_file_size(agentd.pid(), RLIM_INFINITY);
  EXPECT_EQ(health_within(agentd, 200, std::chrono::seconds(5)), 200)
      << "no write came, and /health found the room itself";
  EXPECT_EQ(call(agentd, "POST", "/memory", admin, entry).status, 201);
  EXPECT_EQ(call(agentd, "POST", "/chat", admin, kChat).status, 200);
}

// A tokens store that fails is as much an outage as the others: no request verifies.
TEST(StorageHealth, ATokenStoreThatCannotWriteIsDegraded) {
  AgentdProcess agentd;
  const std::string admin = first_admin_token(agentd);
  limit_file_size(agentd.pid(), 1024);
  EXPECT_GE(call(agentd, "POST", "/admin/tokens", admin, {{"ttl", "1h"}, {"actor", "x"}}).status,
            500);
  EXPECT_EQ(agentd.request("GET", "/health").status, 503);
  limit_file_size(agentd.pid(), RLIM_INFINITY);
  EXPECT_EQ(health_within(agentd, 200, std::chrono::seconds(5)), 200);
}

// Overwrites one leaf page of memory_entries with junk, as a bad disk sector would.
void damage_memory_entries(const std::string& path) {
  int64_t page = 0;
  {
    StoreConnection db(path);
    page = db.count(
        "SELECT pageno FROM dbstat WHERE name = 'memory_entries' AND pagetype = 'leaf' "
        "LIMIT 1 OFFSET 3");
    ASSERT_GT(page, 0) << "memory_entries has too few pages";
  }
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekp((page - 1) * 4096);
  const std::string junk(4096, '\x5a');
  file.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  ASSERT_TRUE(file.good());
}

TEST(StorageHealth, AMemoryStoreFoundDamagedStaysDegraded) {
  TempDir dir;
  const std::string data = dir.path() + "/data";
  AgentdOptions options = with_args({"--data-dir", data});
  options.private_data_dir = false;
  std::string admin;
  {
    AgentdProcess agentd(options);
    admin = first_admin_token(agentd);
    for (int i = 0; i < 300; ++i) {
      const json entry = {{"layer", "about_me"},
                          {"content", "fact " + std::to_string(i) + std::string(300, 'm')}};
      ASSERT_EQ(call(agentd, "POST", "/memory", admin, entry).status, 201);
    }
    ASSERT_EQ(agentd.stop(SIGTERM), 0);
  }
  ASSERT_FALSE(std::filesystem::exists(data + "/memory.db-wal")) << "checkpointed at the stop";
  damage_memory_entries(data + "/memory.db");

  AgentdProcess agentd(options);
  EXPECT_EQ(call(agentd, "GET", "/memory?layer=about_me&limit=500", admin).status, 500);
  EXPECT_EQ(agentd.request("GET", "/health").status, 503);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_EQ(agentd.request("GET", "/health").status, 503)
      << "a probe write succeeds on the damaged file, and the damage is still there";
}

}  // namespace
}  // namespace agentrt::test
