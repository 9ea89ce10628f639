#include "tools/plugin-check/runner.h"

#include "core/plugin_host/plugin_host.h"
#include "tools/plugin-check/symbols.h"

#include <nlohmann/json.hpp>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <optional>

namespace agentrt::plugin_check {
namespace {

using nlohmann::json;

// The child reports through a pipe, one JSON object a line: {"info"}, then
// {"begin":i,"name"} and {"result"} for each check, {"end":true} at the end.
void send(int fd, const json& message) {
  const std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  for (size_t done = 0; done < line.size();) {
    const ssize_t n = write(fd, line.data() + done, line.size() - done);
    if (n <= 0) _exit(3);  // the parent is gone
    done += size_t(n);
  }
}

json result_message(const std::string& name, Result result, const std::string& detail) {
  return {{"result", result_name(result)}, {"name", name}, {"detail", detail}};
}

Outcome run_one(const Check& check, const Context& context) {
  try {
    return check.run(context);
  } catch (const Skip& e) {
    return {Result::skip, e.what()};
  } catch (const Failure& e) {
    return {Result::fail, e.what()};
  } catch (const core::PluginError& e) {
    return {Result::fail, describe(e)};
  } catch (const std::exception& e) {
    return {Result::fail, e.what()};
  }
}

// In the child: loads the plugin as agentd does and runs the checks from `start` on.
void run_child(const Options& options, size_t start, int fd) {
  core::PluginHost host;
  const core::PluginStatus status = host.load(options.plugin_path);
  if (!status.loaded) {
    send(fd, result_message("load", Result::fail, status.error));
    send(fd, {{"end", true}});
    return;
  }
  std::shared_ptr<const core::LoadedPlugin> plugin = host.find(status.name);
  const std::vector<Check> checks = checks_for(*plugin);
  send(fd, {{"info",
             {{"plugin", status.name},
              {"kind", status.kind},
              {"abi", status.abi},
              {"count", checks.size()}}}});
  if (start == 0)
    send(fd, result_message("load", Result::pass,
                            status.name + " " + status.version + ", " + status.kind + ", ABI " +
                                status.abi + (plugin->thread_safe() ? ", thread-safe" : "")));
  const Context context{plugin, good_config(*plugin, options), &options};
  for (size_t i = start; i < checks.size(); ++i) {
    send(fd, {{"begin", i}, {"name", checks[i].name}});
    const Outcome outcome = run_one(checks[i], context);
    send(fd, result_message(checks[i].name, outcome.result, outcome.detail));
  }
  send(fd, {{"end", true}});
}

Result parse_result(const std::string& name) {
  for (Result r : {Result::pass, Result::warn, Result::fail, Result::skip})
    if (name == result_name(r)) return r;
  return Result::fail;
}

// One child's run as the parent sees it.
struct ChildRun {
  bool ended = false;
  bool informed = false;        // the plugin loaded
  std::optional<size_t> begun;  // the check under way when the child stopped
  std::string begun_name;
  std::string stop;  // why the child stopped early
};

std::string exit_reason(int status) {
  if (WIFSIGNALED(status))
    return std::string("the plugin crashed the check (signal ") + std::to_string(WTERMSIG(status)) +
           ", " + strsignal(WTERMSIG(status)) + ")";
  return "the check's process exited with status " + std::to_string(WEXITSTATUS(status));
}

class Supervisor {
 public:
  Supervisor(const Options& options, Report& report, CheckLine symbols)
      : options_(options), report_(report), symbols_(std::move(symbols)) {}

  // Runs a child from check `start`; returns where the next child starts, or nullopt.
  std::optional<size_t> run_from(size_t start) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      close(fds[0]);
      dup2(STDERR_FILENO, STDOUT_FILENO);  // a plugin's prints must not mix into the report
      run_child(options_, start, fds[1]);
      _exit(0);
    }
    close(fds[1]);
    ChildRun run = read_child(fds[0], pid);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (run.ended) return std::nullopt;
    if (run.stop.empty()) run.stop = exit_reason(status);
    if (!run.begun) {
      // Outside any check: loading, or unloading after the last one.
      if (run.informed)
        report_.checks.push_back({"unload", Result::fail, run.stop + " after the checks"});
      else
        report_.checks.push_back({"load", Result::fail, run.stop + " while loading"});
      return std::nullopt;
    }
    report_.checks.push_back({run.begun_name, Result::fail, run.stop});
    return *run.begun + 1 < count_ ? std::optional<size_t>(*run.begun + 1) : std::nullopt;
  }

 private:
  ChildRun read_child(int fd, pid_t pid) {
    ChildRun run;
    std::string buffer;
    char chunk[4096];
    for (;;) {
      pollfd p{fd, POLLIN, 0};
      const int ready = poll(&p, 1, options_.timeout_s * 1000);
      if (ready == 0) {
        kill(pid, SIGKILL);
        run.stop = "did not finish within " + std::to_string(options_.timeout_s) + " s";
        return run;
      }
      const ssize_t n = ready < 0 ? -1 : read(fd, chunk, sizeof chunk);
      if (n <= 0) return run;
      buffer.append(chunk, size_t(n));
      for (size_t eol; (eol = buffer.find('\n')) != std::string::npos;) {
        handle(json::parse(buffer.substr(0, eol), nullptr, false), run);
        buffer.erase(0, eol + 1);
      }
      if (run.ended) return run;
    }
  }

  void handle(const json& message, ChildRun& run) {
    if (!message.is_object()) return;
    if (message.contains("info")) {
      run.informed = true;
      const json& info = message["info"];
      report_.plugin = info.value("plugin", "");
      report_.kind = info.value("kind", "");
      report_.abi = info.value("abi", "");
      count_ = info.value("count", size_t{0});
    } else if (message.contains("begin")) {
      run.begun = message["begin"].get<size_t>();
      run.begun_name = message.value("name", "");
    } else if (message.contains("result")) {
      const std::string name = message.value("name", "");
      report_.checks.push_back(
          {name, parse_result(message.value("result", "")), message.value("detail", "")});
      if (name == "load" && report_.checks.back().result == Result::pass)
        report_.checks.push_back(symbols_);
      run.begun.reset();
    } else if (message.contains("end")) {
      run.ended = true;
    }
  }
  const Options& options_;
  Report& report_;
  CheckLine symbols_;
  size_t count_ = 0;
};

}  // namespace

Report run_checks(const Options& options) {
  Report report;
  report.path = options.plugin_path;
  const Outcome symbols = exported_symbols(options.plugin_path);
  Supervisor supervisor(options, report, {"exported_symbols", symbols.result, symbols.detail});
  for (std::optional<size_t> next = 0; next;) next = supervisor.run_from(*next);
  return report;
}

}  // namespace agentrt::plugin_check
