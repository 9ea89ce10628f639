// Starting and stopping the real agentd: signals, configuration precedence, startup
// failures.
#include "tests/api/admin_client.h"
#include "tests/api/store_connection.h"

#include <Poco/Net/ServerSocket.h>
#include <gtest/gtest.h>

#include <sched.h>
#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <thread>
#include <vector>

namespace agentrt::test {
namespace {

bool logged(const AgentdProcess& agentd, const std::string& message) {
  return agentd.wait_for_log(
      [&](const nlohmann::json& line) { return line.value("msg", "") == message; },
      std::chrono::milliseconds(0));
}

// A port nothing listens on right now (a small race with other processes is accepted).
uint16_t free_port() {
  Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
  return socket.address().port();
}

TEST(Lifecycle, SigtermExitsZero) {
  AgentdProcess agentd;
  ASSERT_EQ(agentd.request("GET", "/health").status, 200);
  EXPECT_EQ(agentd.stop(SIGTERM), 0) << agentd.stderr_text();
  EXPECT_TRUE(logged(agentd, "shutting down"));
  EXPECT_TRUE(logged(agentd, "stopped"));
}

uint64_t soft_open_file_limit(pid_t pid) {
  std::ifstream limits("/proc/" + std::to_string(pid) + "/limits");
  std::string line;
  while (std::getline(limits, line))
    if (line.rfind("Max open files", 0) == 0) return std::stoull(line.substr(26));
  return 0;
}

// Thousands of streams need thousands of descriptors; agentd must not stop at the
// 1024 a login shell usually gives it.
TEST(Lifecycle, RaisesItsOpenFileLimitForItsThreads) {
  struct rlimit mine {};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &mine), 0);
  struct rlimit low = mine;
  low.rlim_cur = std::min<rlim_t>(512, mine.rlim_max);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  TempDir dir;
  AgentdProcess agentd(
      with_args({"--config", dir.write("c.json", R"({"server":{"threads":3000}})")}));
  ::setrlimit(RLIMIT_NOFILE, &mine);  // the agentd child inherited the low limit
  // Four a thread, one a queued connection (the default 4096), 256 to spare; the
  // behaviour behind the count: descriptor_budget_test.cpp.
  const uint64_t expected = std::min<uint64_t>(4 * 3000 + 4096 + 256, mine.rlim_max);
  EXPECT_EQ(soft_open_file_limit(agentd.pid()), expected);
  EXPECT_EQ(agentd.stop(SIGTERM), 0) << agentd.stderr_text();
}

struct ThreadPolicy {
  std::string name;
  int policy;
};

// Each thread's name and scheduling policy, by thread id.
std::map<pid_t, ThreadPolicy> thread_policies(pid_t pid) {
  std::map<pid_t, ThreadPolicy> policies;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& entry : std::filesystem::directory_iterator(tasks)) {
    const pid_t tid = static_cast<pid_t>(std::stol(entry.path().filename().string()));
    std::ifstream comm(entry.path() / "comm");
    std::string name;
    std::getline(comm, name);
    policies[tid] = {name, ::sched_getscheduler(tid)};
  }
  return policies;
}

// Every thread, the connection threads included, runs under SCHED_BATCH unless
// server.batch_scheduling is false (serve.cpp, apply_scheduling); the state store's
// WAL checkpoint thread takes only idle CPU either way (wal_checkpointer.h).
// Whether this machine lets a thread take `policy` (a container's seccomp rules may not).
bool policy_allowed(int policy) {
  bool allowed = false;
  std::thread([&] {
    const sched_param param{};
    allowed = ::sched_setscheduler(0, policy, &param) == 0;
  }).join();
  return allowed;
}

TEST(Lifecycle, ItsThreadsUseBatchSchedulingUnlessSwitchedOff) {
  if (!policy_allowed(SCHED_BATCH) || !policy_allowed(SCHED_IDLE))
    GTEST_SKIP() << "this machine does not let a thread change its scheduling policy";
  TempDir dir;
  for (const bool batch : {true, false}) {
    AgentdProcess agentd(with_args(
        {"--config",
         dir.write("c.json", batch ? "{}" : R"({"server":{"batch_scheduling":false}})")}));
    ASSERT_EQ(agentd.request("GET", "/health").status, 200);
    const std::map<pid_t, ThreadPolicy> policies = thread_policies(agentd.pid());
    EXPECT_GT(policies.size(), 3u);  // main, acceptor, a connection, the checkpointer...
    size_t checkpointers = 0;
    for (const auto& [tid, thread] : policies) {
      if (thread.name == "agentrt-ckpt") {
        ++checkpointers;
        EXPECT_EQ(thread.policy, SCHED_IDLE) << "thread " << tid;
      } else {
        EXPECT_EQ(thread.policy, batch ? SCHED_BATCH : SCHED_OTHER)
            << "thread " << tid << " " << thread.name;
      }
    }
    EXPECT_EQ(checkpointers, 1u);  // the state store's
    EXPECT_EQ(agentd.stop(SIGTERM), 0) << agentd.stderr_text();
  }
}

bool maps_library(pid_t pid, const std::string& name) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find(name) != std::string::npos) return true;
  return false;
}

// agentd runs on the allocator its build chose (cmake/Allocator.cmake): jemalloc unless
// built with sanitizers or -DAGENTRT_MALLOC=system.
TEST(Lifecycle, RunsOnTheAllocatorItsBuildChose) {
  AgentdProcess agentd;
  ASSERT_EQ(agentd.request("GET", "/health").status, 200);
  EXPECT_EQ(maps_library(agentd.pid(), "/libjemalloc.so"),
            std::string(AGENTRT_EXPECTED_MALLOC) == "jemalloc")
      << "expected " << AGENTRT_EXPECTED_MALLOC;
}

TEST(Lifecycle, SigintExitsZero) {
  AgentdProcess agentd;
  EXPECT_EQ(agentd.stop(SIGINT), 0) << agentd.stderr_text();
  EXPECT_TRUE(logged(agentd, "stopped"));
}

// An idle keep-alive connection must not hold the shutdown for its keep-alive timeout,
// and after the shutdown the port no longer accepts connections.
TEST(Lifecycle, IdleKeepAliveConnectionDoesNotDelayShutdown) {
  TempDir dir;
  const std::string config =
      dir.write("c.json", R"({"server":{"keep_alive_timeout_s":30,"receive_timeout_s":30}})");
  AgentdProcess agentd(with_args({"--config", config}));
  HttpConnection idle = agentd.connect();
  ASSERT_EQ(idle.request("GET", "/health").status, 200);
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(agentd.stop(SIGTERM), 0) << agentd.stderr_text();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  EXPECT_TRUE(idle.closed_by_server(std::chrono::milliseconds(100)));
}

// Between requests a connection waits the keep-alive timeout for the next one, then the
// server closes it; while it waits it serves requests as they come.
TEST(Lifecycle, IdleKeepAliveConnectionIsClosedAfterItsTimeout) {
  TempDir dir;
  const std::string config = dir.write("c.json", R"({"server":{"keep_alive_timeout_s":1}})");
  AgentdProcess agentd(with_args({"--config", config}));
  HttpConnection connection = agentd.connect();
  ASSERT_EQ(connection.request("GET", "/health").status, 200);
  EXPECT_FALSE(connection.closed_by_server(std::chrono::milliseconds(600)));
  ASSERT_EQ(connection.request("GET", "/health").status, 200) << "the wait restarts";
  const auto idle_since = std::chrono::steady_clock::now();
  EXPECT_FALSE(connection.closed_by_server(std::chrono::milliseconds(700)));
  EXPECT_TRUE(connection.closed_by_server(std::chrono::milliseconds(2000)));
  EXPECT_GE(std::chrono::steady_clock::now() - idle_since, std::chrono::milliseconds(900));
}

// Poco retires idle pool threads only when it starts another, so after a burst served by
// keep-alive clients a thousand idle threads, with their stacks and warm upstream
// connections, would stay for good. They end server.thread_idle_s after their last work,
// while the clients that stay are served as ever.
TEST(Lifecycle, ThreadsOfABurstEndOnceIdleWhileOthersStay) {
  TempDir dir;
  AgentdProcess agentd(
      with_args({"--config", dir.write("c.json", R"({"server":{"thread_idle_s":1}})")}));
  HttpConnection staying = agentd.connect();
  ASSERT_EQ(staying.request("GET", "/health").status, 200);
  const size_t before = agentd.threads();
  {
    std::vector<std::unique_ptr<HttpConnection>> burst;
    for (int i = 0; i < 60; ++i) {
      burst.push_back(std::make_unique<HttpConnection>(agentd.port()));
      ASSERT_EQ(burst.back()->request("GET", "/health").status, 200);
    }
    EXPECT_GE(agentd.threads(), before + 50);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (agentd.threads() > before + 5 && std::chrono::steady_clock::now() < deadline) {
    ASSERT_EQ(staying.request("GET", "/health").status, 200);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_LE(agentd.threads(), before + 5);
  EXPECT_EQ(staying.request("GET", "/health").status, 200);
}

// The "listening" line is the readiness signal, and carries the port the kernel chose for
// :0, so it is written at log level warn or error too.
TEST(Lifecycle, TheListeningLineComesAtEveryLogLevel) {
  for (const char* level : {"warn", "error"}) {
    AgentdProcess agentd(with_args({"--log-level", level}));  // waits for the line
    EXPECT_EQ(agentd.request("GET", "/health").status, 200) << level;
    for (const auto& line : agentd.log_lines())
      EXPECT_NE(line.value("msg", ""), "request") << level << ": a request line at " << level;
  }
}

// Started in single-cell mode by mistake, a multi-cell data dir would gain a cell
// "default" for good and serve none of its tenants: agentd refuses it.
TEST(Lifecycle, SingleCellModeRefusesADataDirWithOtherCells) {
  TempDir dir;
  auto on_dir = [&](std::vector<std::string> args) {
    AgentdOptions options;
    options.private_data_dir = false;
    options.args = {"--data-dir", dir.path() + "/data"};
    options.args.insert(options.args.end(), args.begin(), args.end());
    return options;
  };
  std::string admin;
  {
    AgentdProcess multi(on_dir({"--mode", "multi"}));
    admin = first_admin_token(multi);
    ASSERT_EQ(call(multi, "POST", "/admin/cells", admin, {{"id", "acme"}}).status, 201);
    ASSERT_EQ(multi.stop(), 0);
  }
  try {
    AgentdProcess single(on_dir({}));
    ADD_FAILURE() << "single-cell mode served a multi-cell data dir";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cells other than 'default' (acme)"), std::string::npos) << what;
    EXPECT_NE(what.find("--mode multi"), std::string::npos) << what;
  }
  AgentdProcess multi(on_dir({"--mode", "multi"}));
  const auto cells = call(multi, "GET", "/admin/cells", admin).json()["data"];
  ASSERT_EQ(cells.size(), 1u) << cells.dump();
  EXPECT_EQ(cells[0]["id"], "acme");
}

// A data dir that lost auth.db or memory.db (a partial restore, a backup of state.db
// alone) must not start afresh without a word: every token dead and no admin token made,
// or all memory gone. The start is refused, naming the store, and makes none in its
// place.
TEST(Lifecycle, AStoreTheLastStartHeldMustNotBeMissing) {
  TempDir dir;
  const std::string data = dir.path() + "/data";
  AgentdOptions options;
  options.private_data_dir = false;
  options.args = {"--data-dir", data};
  { AgentdProcess first(options); }
  for (const std::string store : {"auth.db", "memory.db"}) {
    const std::string kept = dir.path() + "/" + store;
    std::filesystem::rename(data + "/" + store, kept);  // a clean stop left no WAL
    try {
      AgentdProcess again(options);
      ADD_FAILURE() << "started without " << store;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("'" + store + "' is missing or empty"),
                std::string::npos)
          << e.what();
    }
    EXPECT_FALSE(std::filesystem::exists(data + "/" + store)) << "made anew";
    std::filesystem::rename(kept, data + "/" + store);
    AgentdProcess restored(options);
    EXPECT_EQ(restored.request("GET", "/health").status, 200);
  }
}

// A plugin store's schema step can take seconds on a large store, and must not pass
// without a word at any log level: it is said before and after, with its time.
TEST(Lifecycle, APluginStoresSchemaStepIsLogged) {
  TempDir dir;
  AgentdOptions options;
  options.private_data_dir = false;
  options.args = {"--data-dir", dir.path() + "/data"};
  { AgentdProcess first(options); }
  {
    StoreConnection auth(dir.path() + "/data/auth.db");
    const int64_t version = auth.count("PRAGMA user_version");
    ASSERT_EQ(version, 3) << "this test undoes step 3";
    auth.exec("DROP INDEX tokens_by_expiry; DROP INDEX tokens_by_revocation;");
    auth.exec("PRAGMA user_version = 2");
  }
  AgentdProcess again(options);
  std::vector<std::string> said;
  for (const auto& line : again.log_lines())
    if (line.value("plugin", "") == "auth-token") said.push_back(line.value("msg", ""));
  ASSERT_GE(said.size(), 2u) << again.stderr_text();
  EXPECT_EQ(said[0], "auth-token: auth.db: upgrading the schema from version 2 to 3");
  EXPECT_EQ(said[1].rfind("auth-token: auth.db: upgraded to schema version 3 in ", 0), 0u)
      << said[1];
}

TEST(Lifecycle, ListenFlagBeatsEnvironmentBeatsFile) {
  TempDir dir;
  const uint16_t file_port = free_port(), env_port = free_port(), flag_port = free_port();
  const std::string config =
      dir.write("c.json", R"({"listen":"127.0.0.1:)" + std::to_string(file_port) + "\"}");
  auto start = [&](bool env, bool flag) {
    AgentdOptions options;
    options.listen_on_ephemeral_port = false;
    options.args = {"--config", config};
    if (env) options.env["AGENTRT_LISTEN"] = "127.0.0.1:" + std::to_string(env_port);
    if (flag)
      options.args.insert(options.args.end(),
                          {"--listen", "127.0.0.1:" + std::to_string(flag_port)});
    AgentdProcess agentd(options);
    EXPECT_EQ(agentd.request("GET", "/health").status, 200);
    return agentd.port();
  };
  EXPECT_EQ(start(true, true), flag_port);
  EXPECT_EQ(start(true, false), env_port);
  EXPECT_EQ(start(false, false), file_port);
}

// The engine makes the admin token on the first start; agentd shows it once, outside
// the JSON log, and never again.
TEST(Lifecycle, FirstStartShowsTheAdminTokenOnceOutsideTheLog) {
  TempDir data;
  AgentdOptions options;
  options.private_data_dir = false;
  options.args = {"--data-dir", data.path() + "/d"};
  std::string token;
  {
    AgentdProcess first(options);
    const std::string err = first.stderr_text();
    std::smatch found;
    ASSERT_TRUE(std::regex_search(err, found, std::regex("\n  (art_[A-Za-z0-9_-]+)\n"))) << err;
    token = found[1];
    for (const nlohmann::json& line : first.log_lines())
      EXPECT_EQ(line.dump().find(token), std::string::npos) << line.dump();
  }
  AgentdProcess second(options);
  EXPECT_EQ(second.stderr_text().find("art_"), std::string::npos) << second.stderr_text();
}

TEST(Lifecycle, BadConfigStopsServeWithTheKeyNamed) {
  TempDir dir;
  const std::string config = dir.write("c.json", R"({"server":{"threads":"many"}})");
  const CommandResult result = run_agentd({"serve", "--config", config});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("config error: server.threads"), std::string::npos) << result.err;
}

TEST(Lifecycle, UnusableDataDirStopsServeWithExitOne) {
  TempDir dir;
  const std::string file = dir.write("not-a-dir", "x");
  const CommandResult result =
      run_agentd({"--listen", "127.0.0.1:0", "--data-dir", file + "/data"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("cannot open the state store"), std::string::npos) << result.err;
}

TEST(Lifecycle, PortInUseStopsServeWithExitOneAndTouchesNothing) {
  Poco::Net::ServerSocket taken(Poco::Net::SocketAddress("127.0.0.1", 0));
  TempDir dir;
  const CommandResult result =
      run_agentd({"--listen", taken.address().toString(), "--data-dir", dir.path() + "/data"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("cannot listen"), std::string::npos) << result.err;
  // It binds before it opens the data dir: otherwise a start that cannot listen would
  // make the stores and print a first admin token no later start would show.
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/data")) << "the data dir was made";
  EXPECT_EQ(result.err.find("art_"), std::string::npos) << result.err;
}

AgentdOptions on_data_dir(const std::string& dir) {
  AgentdOptions options;
  options.private_data_dir = false;
  options.args = {"--data-dir", dir};
  return options;
}

// One data dir, one serving agentd: a second would answer from caches (verified
// tokens, session histories) that the first's writes leave stale, so it stops before
// it listens and names the holder.
TEST(Lifecycle, ASecondAgentdOnTheSameDataDirStopsWithExitOne) {
  TempDir data;
  AgentdProcess first(on_data_dir(data.path()));
  const CommandResult second = run_agentd({"--listen", "127.0.0.1:0", "--data-dir", data.path()});
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_NE(second.err.find("the data dir is in use by another agentd"), std::string::npos)
      << second.err;
  EXPECT_NE(second.err.find("\"pid\":" + std::to_string(first.pid())), std::string::npos)
      << second.err;
  EXPECT_EQ(second.err.find("listening"), std::string::npos) << second.err;
  EXPECT_EQ(first.request("GET", "/health").status, 200);
}

// The kernel drops the lock with the process: a crash leaves nothing to clean up.
TEST(Lifecycle, AKilledAgentdLeavesItsDataDirToTheNext) {
  TempDir data;
  AgentdProcess first(on_data_dir(data.path()));
  ASSERT_EQ(first.stop(SIGKILL), 128 + SIGKILL);
  AgentdProcess second(on_data_dir(data.path()));
  EXPECT_EQ(second.request("GET", "/health").status, 200);
  std::ifstream lock(data.path() + "/agentd.lock");
  std::string pid;
  std::getline(lock, pid);
  EXPECT_EQ(pid, std::to_string(second.pid()));
}

}  // namespace
}  // namespace agentrt::test
