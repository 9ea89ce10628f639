// Start time and idle memory of a server: exec to first healthy GET /health, polled
// every millisecond, then VmRSS after it has idled.
//
//   start_probe [--runs 5] [--settle-ms 1000] [--timeout-ms 10000] -- COMMAND ARGS...
//
// In COMMAND and ARGS, "{port}" becomes a free loopback port picked for each run and
// "{run}" the run's number (1..runs), e.g. for a fresh data directory per run. Healthy
// means a 200 whose body has "status":"ok". Each run ends with SIGTERM (SIGKILL after
// 15 s), timed to the exit. Prints one JSON object on stdout: every run and the medians.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) < 0) {
    std::perror("start_probe: free port");
    std::exit(1);
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

// One GET /health; true when it answers 200 with "status":"ok".
bool healthy(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = false;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const char request[] = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (send(fd, request, sizeof request - 1, MSG_NOSIGNAL) == sizeof request - 1) {
      std::string response;
      char buf[4096];
      pollfd p{fd, POLLIN, 0};
      while (poll(&p, 1, 1000) == 1) {
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        response.append(buf, static_cast<size_t>(n));
        if (response.find("\"status\":\"ok\"") != std::string::npos) break;
      }
      ok = response.compare(0, 12, "HTTP/1.1 200") == 0 &&
           response.find("\"status\":\"ok\"") != std::string::npos;
    }
  }
  ::close(fd);
  return ok;
}

long status_number(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.compare(0, field.size() + 1, field + ":") == 0)
      return std::atol(line.c_str() + field.size() + 1);
  return -1;
}

std::string substitute(std::string s, const std::string& key, const std::string& value) {
  for (size_t at = s.find(key); at != std::string::npos; at = s.find(key, at + value.size()))
    s.replace(at, key.size(), value);
  return s;
}

// Milliseconds from SIGTERM to the exit, polled every millisecond; -1 if it had to be
// killed.
double stop(pid_t pid) {
  const Clock::time_point t0 = Clock::now();
  kill(pid, SIGTERM);
  for (int i = 0; i < 15000; ++i) {
    if (waitpid(pid, nullptr, WNOHANG) == pid)
      return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return -1;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5, settle_ms = 1000, timeout_ms = 10000;
  int i = 1;
  for (; i < argc && std::strcmp(argv[i], "--") != 0; i += 2) {
    if (i + 1 >= argc) break;
    std::string flag = argv[i];
    int value = std::atoi(argv[i + 1]);
    if (flag == "--runs")
      runs = value;
    else if (flag == "--settle-ms")
      settle_ms = value;
    else if (flag == "--timeout-ms")
      timeout_ms = value;
    else
      break;
  }
  if (i >= argc || std::strcmp(argv[i], "--") != 0 || i + 1 >= argc || runs < 1) {
    std::fprintf(stderr,
                 "usage: start_probe [--runs N] [--settle-ms MS] [--timeout-ms MS] -- "
                 "COMMAND ARGS... ({port}, {run} substituted)\n");
    return 2;
  }
  std::vector<std::string> command(argv + i + 1, argv + argc);

  std::vector<double> healthy_ms, rss_kb, stopped_ms;
  std::string runs_json;
  for (int run = 1; run <= runs; ++run) {
    const int port = free_port();
    std::vector<std::string> args;
    for (const std::string& a : command)
      args.push_back(
          substitute(substitute(a, "{port}", std::to_string(port)), "{run}", std::to_string(run)));
    std::vector<char*> exec_args;
    for (std::string& a : args) exec_args.push_back(a.data());
    exec_args.push_back(nullptr);

    const Clock::time_point t0 = Clock::now();
    pid_t pid = fork();
    if (pid == 0) {
      int null = open("/dev/null", O_WRONLY);
      dup2(null, 1);
      dup2(null, 2);
      execv(exec_args[0], exec_args.data());
      _exit(127);
    }
    double took = -1;
    for (int tick = 1; tick <= timeout_ms; ++tick) {
      if (healthy(port)) {
        took = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        break;
      }
      if (waitpid(pid, nullptr, WNOHANG) == pid) break;  // it died
      std::this_thread::sleep_until(t0 + std::chrono::milliseconds(tick));
    }
    if (took < 0) {
      stop(pid);
      std::fprintf(stderr, "start_probe: run %d never became healthy\n", run);
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(settle_ms));
    const long rss = status_number(pid, "VmRSS");
    const long threads = status_number(pid, "Threads");
    const double stopped = stop(pid);
    healthy_ms.push_back(took);
    rss_kb.push_back(static_cast<double>(rss));
    stopped_ms.push_back(stopped);
    char entry[200];
    std::snprintf(entry, sizeof entry,
                  "%s{\"healthy_ms\":%.2f,\"rss_kb\":%ld,\"threads\":%ld,\"stopped_ms\":%.2f}",
                  run == 1 ? "" : ",", took, rss, threads, stopped);
    runs_json += entry;
  }
  std::printf(
      "{\"runs\":[%s],\"median_healthy_ms\":%.2f,\"median_rss_kb\":%.0f,"
      "\"median_stopped_ms\":%.2f}\n",
      runs_json.c_str(), median(healthy_ms), median(rss_kb), median(stopped_ms));
  return 0;
}
