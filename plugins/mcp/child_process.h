// A stdio MCP server's process: started with a clean environment so that agentd's own
// (which may hold credentials) never reaches it, tied to agentd's life through
// PR_SET_PDEATHSIG, and ended (stdin closed, SIGTERM, SIGKILL after ~2 s, reaped).
#pragma once

#include <sys/types.h>
#include <map>
#include <string>
#include <vector>

namespace agentrt::mcp {

struct ChildSpec {
  std::vector<std::string> command;  // program and its arguments
  std::map<std::string, std::string> env;
  std::string cwd;  // empty: agentd's
};

class ChildProcess {
 public:
  // Throws Error(UNAVAILABLE) naming the program when it cannot be started.
  explicit ChildProcess(const ChildSpec& spec);
  ~ChildProcess();  // stop(), then closes stdout and stderr
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  int stdin_fd() const { return in_; }
  int stdout_fd() const { return out_; }
  int stderr_fd() const { return err_; }
  pid_t pid() const { return pid_; }

  // Closes stdin, signals, kills when it lingers, reaps; stdout and stderr stay open
  // for readers to drain until the destructor. Idempotent.
  void stop();

 private:
  pid_t pid_ = -1;
  int in_ = -1;
  int out_ = -1;
  int err_ = -1;
};

// The environment a child gets: PATH, HOME and LANG of this process, then `extra`.
std::vector<std::string> clean_environment(const std::map<std::string, std::string>& extra);

}  // namespace agentrt::mcp
