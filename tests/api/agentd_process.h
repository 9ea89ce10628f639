// Runs the real agentd binary for API tests: a private temp directory (the data dir
// and the captured output live there), an ephemeral port read from the "listening" log
// line, requests over real sockets, and a stop by signal that reports the exit status.
// A test that forgets to stop it still leaves no process behind, and any agentd that
// exits uncleanly or prints a sanitizer report fails the test (ADD_FAILURE).
#pragma once

#include "tests/api/http_client.h"

#include <nlohmann/json.hpp>

#include <sys/types.h>

#include <chrono>
#include <csignal>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace agentrt::test {

using Environment = std::map<std::string, std::string>;

// The agentd under test (the build's, via a compile definition).
std::string agentd_path();

// A directory under the system temp dir, removed with its contents.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // Writes `content` to `name` inside the directory; returns the full path.
  std::string write(const std::string& name, const std::string& content) const;

 private:
  std::string path_;
};

struct AgentdOptions {
  std::vector<std::string> args;  // after the defaults below, so they can override them
  // AGENTRT_* variables of the test's own environment are never passed on; these are.
  Environment env;
  bool listen_on_ephemeral_port = true;  // --listen 127.0.0.1:0
  bool private_data_dir = true;          // --data-dir <temp>/data
  std::chrono::milliseconds startup_timeout{10000};
};

// Options with these extra arguments.
AgentdOptions with_args(std::vector<std::string> args);

class AgentdProcess {
 public:
  // Starts agentd and waits for its "listening" line; throws std::runtime_error with
  // the captured stderr when it exits or stays silent instead.
  explicit AgentdProcess(AgentdOptions options = {});
  // Stops the process if it is still running (SIGTERM, then SIGKILL after 10 s; a
  // non-zero exit fails the test), then removes the temp directory.
  ~AgentdProcess();
  AgentdProcess(const AgentdProcess&) = delete;
  AgentdProcess& operator=(const AgentdProcess&) = delete;

  uint16_t port() const { return port_; }
  const std::string& data_dir() const { return data_dir_; }
  const std::string& work_dir() const { return temp_.path(); }
  pid_t pid() const { return pid_; }

  HttpResponse request(const std::string& method, const std::string& target,
                       const std::string& body = {}, const Headers& headers = {}) const;
  HttpConnection connect() const { return HttpConnection(port_); }

  // Sends `signal` and waits for the exit: the exit status, 128 + N when signal N
  // killed it, or -1 when it was still running after `timeout` (it is then killed).
  int stop(int signal = SIGTERM, std::chrono::milliseconds timeout = std::chrono::seconds(20));
  bool running();

  std::string stderr_text() const;
  // How many descriptors the process has open now (/proc/<pid>/fd).
  size_t open_descriptors() const;
  // How many threads the process has now (/proc/<pid>/task).
  size_t threads() const;
  // stderr's lines that parse as JSON objects, in order.
  std::vector<nlohmann::json> log_lines() const;
  // Waits until a log line satisfies `match`; false on timeout.
  bool wait_for_log(const std::function<bool(const nlohmann::json&)>& match,
                    std::chrono::milliseconds timeout = std::chrono::seconds(5)) const;

 private:
  void wait_until_listening(std::chrono::milliseconds timeout);
  void remember_config_secrets(const std::string& path) const;

  TempDir temp_;
  Environment env_;
  std::string data_dir_;
  std::string stderr_path_;
  pid_t pid_ = -1;
  uint16_t port_ = 0;
};

struct CommandResult {
  int exit_code = -1;  // as AgentdProcess::stop reports it
  std::string out;
  std::string err;
};

// Runs `agentd <args>` to completion (killed after `timeout`), in a temp working dir.
CommandResult run_agentd(const std::vector<std::string>& args, const Environment& env = {},
                         std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace agentrt::test
