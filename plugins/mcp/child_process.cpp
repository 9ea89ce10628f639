#include "mcp/child_process.h"

#include <agentrt/plugin.hpp>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace agentrt::mcp {
namespace {

using sdk::Error;

std::string variable(const std::vector<std::string>& env, const std::string& name) {
  for (const std::string& entry : env)
    if (entry.compare(0, name.size() + 1, name + "=") == 0) return entry.substr(name.size() + 1);
  return {};
}

// Resolved in the parent, since after fork only async-signal-safe calls are allowed
// and execvp may allocate. The child's own PATH is searched: it is the one it runs with.
std::string resolve(const std::string& program, const std::vector<std::string>& env) {
  if (program.find('/') != std::string::npos) return program;
  std::string path = variable(env, "PATH");
  if (path.empty()) path = "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  throw Error(AGENTRT_ERR_UNAVAILABLE, "mcp server command not found: " + program);
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Runs in the forked child: only async-signal-safe calls until exec.
[[noreturn]] void exec_child(const char* program, char* const* argv, char* const* envp,
                             const char* cwd, const int fds[3], int report, pid_t parent) {
  // Dies with agentd; the getppid check closes the race of agentd dying before prctl.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(127);
  setpgid(0, 0);  // its own group, so that stop() reaches what it starts too
  for (int i = 0; i < 3; ++i)
    if (dup2(fds[i], i) < 0) _exit(127);
#ifdef SYS_close_range
  // agentd's descriptors opened without O_CLOEXEC (sockets, files) are not the server's
  // business; only the exec report pipe stays, and it closes at exec.
  if (report > 3) syscall(SYS_close_range, 3u, static_cast<unsigned>(report - 1), 0u);
  syscall(SYS_close_range, static_cast<unsigned>(report + 1), ~0u, 0u);
#endif
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  signal(SIGPIPE, SIG_DFL);
  if (cwd && chdir(cwd) != 0) {
    int e = errno;
    (void)!write(report, &e, sizeof e);
    _exit(127);
  }
  execve(program, argv, envp);
  int e = errno;
  (void)!write(report, &e, sizeof e);
  _exit(127);
}

void make_pipe(int fds[2]) {
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw Error(AGENTRT_ERR_INTERNAL, std::string("mcp: pipe failed: ") + std::strerror(errno));
}

}  // namespace

std::vector<std::string> clean_environment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (const char* name : {"PATH", "HOME", "LANG"}) {
    if (extra.count(name)) continue;
    if (const char* value = std::getenv(name)) env.push_back(std::string(name) + "=" + value);
  }
  for (const auto& [key, value] : extra) env.push_back(key + "=" + value);
  return env;
}

ChildProcess::ChildProcess(const ChildSpec& spec) {
  if (spec.command.empty()) throw Error(AGENTRT_ERR_INVALID_ARGUMENT, "mcp: empty command");
  std::vector<std::string> env = clean_environment(spec.env);
  std::string program = resolve(spec.command[0], env);
  std::vector<std::string> args = spec.command;
  std::vector<char*> argv = pointers(args), envp = pointers(env);
  int in[2], out[2], err[2], report[2];
  make_pipe(in);
  make_pipe(out);
  make_pipe(err);
  make_pipe(report);
  const int child_fds[3] = {in[0], out[1], err[1]};
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ == 0)
    exec_child(program.c_str(), argv.data(), envp.data(),
               spec.cwd.empty() ? nullptr : spec.cwd.c_str(), child_fds, report[1], parent);
  const int fork_errno = errno;
  for (int fd : {in[0], out[1], err[1], report[1]}) close(fd);
  in_ = in[1];
  out_ = out[0];
  err_ = err[0];
  int exec_errno = 0;
  const bool failed_exec = pid_ > 0 && read(report[0], &exec_errno, sizeof exec_errno) > 0;
  close(report[0]);
  if (pid_ < 0 || failed_exec) {
    const int e = pid_ < 0 ? fork_errno : exec_errno;
    stop();
    for (int* fd : {&out_, &err_}) close(*fd), *fd = -1;
    throw Error(AGENTRT_ERR_UNAVAILABLE,
                "mcp server could not be started: " + spec.command[0] + ": " + std::strerror(e));
  }
}

ChildProcess::~ChildProcess() {
  stop();
  for (int* fd : {&out_, &err_})
    if (*fd >= 0) close(*fd), *fd = -1;
}

void ChildProcess::stop() {
  if (in_ >= 0) close(in_);  // a well-behaved server exits at the end of its input
  in_ = -1;
  if (pid_ > 0) {
    int status = 0;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
    bool reaped = false;
    // A short grace for a clean exit, then SIGTERM, then ~2 s more before SIGKILL.
    for (int phase = 0; phase < 2 && !reaped; ++phase) {
      while (!(reaped = waitpid(pid_, &status, WNOHANG) != 0) &&
             std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (reaped) break;
      kill(-pid_, SIGTERM);
      kill(pid_, SIGTERM);
      deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    }
    if (!reaped) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
    // What it started and left behind could hold its stdout open.
    kill(-pid_, SIGKILL);
    pid_ = -1;
  }
}

}  // namespace agentrt::mcp
