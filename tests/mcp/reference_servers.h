// The MCP project's reference servers, which nobody here wrote, for the tests that talk
// to a real MCP server: installed with npm once into the build tree (install-servers.sh;
// the tests skip when npm is absent), and server-everything started over streamable
// HTTP as a child of the test. Needs AGENTRT_TEST_MCP_INSTALL and
// AGENTRT_TEST_MCP_SERVERS_DIR defined by the test's target.
#pragma once

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace agentrt::mcp_reference {

// Every process's id, from /proc.
inline std::vector<pid_t> all_processes() {
  std::vector<pid_t> out;
  DIR* proc = opendir("/proc");
  if (!proc) return out;
  while (dirent* entry = readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (pid > 0) out.push_back(pid);
  }
  closedir(proc);
  return out;
}

// A file of /proc/<pid>, whole ("" once the process is gone).
inline std::string proc_file(pid_t pid, const char* name) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/" + name);
  return std::string((std::istreambuf_iterator<char>(file)), {});
}

inline std::string servers_dir() {
  return AGENTRT_TEST_MCP_SERVERS_DIR;
}
inline std::string everything_js() {
  return servers_dir() + "/node_modules/@modelcontextprotocol/server-everything/dist/index.js";
}
inline std::string filesystem_js() {
  return servers_dir() + "/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js";
}

// Empty when the servers are there, else why not (the tests then skip).
inline const std::string& servers_missing() {
  static const std::string why = [] {
    const std::string command = "'" AGENTRT_TEST_MCP_INSTALL "' '" + servers_dir() + "'";
    const int rc = std::system(command.c_str());
    if (rc == 0) return std::string();
    if (WIFEXITED(rc) && WEXITSTATUS(rc) == 3)
      return std::string("npm is not installed: the MCP reference servers cannot be installed");
    return "installing the MCP reference servers failed (" + command + ")";
  }();
  return why;
}

// A port nothing listens on right now (the kernel's pick for a socket bound to 0).
inline int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

inline bool accepts(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

// server-everything serving streamable HTTP on a free port, killed with this object.
class EverythingHttp {
 public:
  EverythingHttp() = default;
  EverythingHttp(const EverythingHttp&) = delete;
  EverythingHttp& operator=(const EverythingHttp&) = delete;
  ~EverythingHttp() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }

  // Empty once it listens, else why not.
  // `args` starts another server that listens on $PORT (a script of the MCP SDK,
  // which NODE_PATH lets it find among the installed servers' modules).
  std::string start(std::vector<std::string> args = {"node", everything_js(), "streamableHttp"}) {
    port_ = free_port();
    std::vector<std::string> env = {"PORT=" + std::to_string(port_),
                                    std::string("PATH=") + std::getenv("PATH"),
                                    "NODE_PATH=" + servers_dir() + "/node_modules"};
    std::vector<char*> argv, envp;
    for (std::string& a : args) argv.push_back(a.data());
    for (std::string& e : env) envp.push_back(e.data());
    argv.push_back(nullptr);
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    const int spawned = posix_spawnp(&pid_, "node", &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) return "node could not be started";
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!accepts(port_) && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!accepts(port_)) return args[1] + " did not listen on port " + std::to_string(port_);
    return "";
  }

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace agentrt::mcp_reference
