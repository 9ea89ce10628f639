#include "tests/api/agentd_process.h"

#include "tests/api/secret_watch.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#ifndef AGENTRT_AGENTD_PATH
#error "AGENTRT_AGENTD_PATH must name the agentd under test (tests/api/CMakeLists.txt)"
#endif

extern char** environ;

namespace agentrt::test {

namespace {

using Clock = std::chrono::steady_clock;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The test's environment without AGENTRT_* (a developer's shell must not change what
// a test sees), plus `extra`.
std::vector<std::string> child_environment(const Environment& extra) {
  std::vector<std::string> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    if (std::strncmp(*entry, "AGENTRT_", 8) != 0) env.emplace_back(*entry);
  }
  for (const auto& [name, value] : extra) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& items) {
  std::vector<char*> out;
  for (std::string& item : items) out.push_back(item.data());
  out.push_back(nullptr);
  return out;
}

// posix_spawn rather than fork: the test process has threads, and the child starts
// with default signal handling and an empty mask whatever the test did to its own.
pid_t spawn(std::vector<std::string> argv, const Environment& env, const std::string& cwd,
            const std::string& out_path, const std::string& err_path) {
  std::vector<std::string> envp = child_environment(env);
  std::vector<char*> c_argv = c_strings(argv), c_envp = c_strings(envp);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t signals;
  sigemptyset(&signals);
  posix_spawnattr_setsigmask(&attr, &signals);
  sigaddset(&signals, SIGPIPE);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  posix_spawnattr_setsigdefault(&attr, &signals);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, c_argv[0], &actions, &attr, c_argv.data(), c_envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw std::runtime_error(std::string("posix_spawn agentd: ") + std::strerror(rc));
  return pid;
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// Waits for `pid` up to `timeout`; its exit code, or nullopt while it still runs.
std::optional<int> wait_exit(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return exit_code_of(status);
    if (done < 0 && errno != EINTR) return -1;
    if (Clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    nlohmann::json parsed = nlohmann::json::parse(line, nullptr, false);
    if (parsed.is_object()) lines.push_back(std::move(parsed));
  }
  return lines;
}

// stderr less the first start's banner, the one place the first admin token is shown
// (server/cli/serve.cpp): its own line, indented.
std::string without_admin_banner(const std::string& err) {
  std::string kept;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("  art_", 0) != 0) kept += line + "\n";
  return kept;
}

}  // namespace

std::string agentd_path() {
  return AGENTRT_AGENTD_PATH;
}

AgentdOptions with_args(std::vector<std::string> args) {
  AgentdOptions options;
  options.args = std::move(args);
  return options;
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "agentrt-api-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string TempDir::write(const std::string& name, const std::string& content) const {
  const std::string full = path_ + "/" + name;
  std::ofstream(full, std::ios::binary) << content;
  return full;
}

AgentdProcess::AgentdProcess(AgentdOptions options)
    : data_dir_(temp_.path() + "/data"), stderr_path_(temp_.path() + "/agentd.stderr") {
  std::vector<std::string> argv{agentd_path()};
  if (options.listen_on_ephemeral_port) argv.insert(argv.end(), {"--listen", "127.0.0.1:0"});
  if (options.private_data_dir) argv.insert(argv.end(), {"--data-dir", data_dir_});
  argv.insert(argv.end(), options.args.begin(), options.args.end());
  env_ = options.env;
  for (size_t i = 0; i + 1 < options.args.size(); ++i)
    if (options.args[i] == "--config") remember_config_secrets(options.args[i + 1]);
  pid_ = spawn(argv, options.env, temp_.path(), temp_.path() + "/agentd.stdout", stderr_path_);
  wait_until_listening(options.startup_timeout);
}

AgentdProcess::~AgentdProcess() {
  // A clean stop rather than a kill, so that what only shows at exit (a hang in the
  // shutdown, a sanitizer's leak report) fails the test that left it running.
  if (pid_ > 0) {
    const int code = stop(SIGTERM, std::chrono::seconds(10));
    if (code != 0) ADD_FAILURE() << "agentd left running exited with " << code;
  }
}

void AgentdProcess::wait_until_listening(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    for (const nlohmann::json& line : log_lines()) {
      if (line.value("msg", "") != "listening") continue;
      const std::string address = line.value("address", "");
      port_ = static_cast<uint16_t>(std::stoi(address.substr(address.rfind(':') + 1)));
      return;
    }
    if (auto code = wait_exit(pid_, std::chrono::milliseconds(0))) {
      pid_ = -1;
      throw std::runtime_error("agentd exited with " + std::to_string(*code) +
                               " before listening; stderr:\n" + stderr_text());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // The destructor does not run for a constructor that throws: without this, the
  // process outlived the failed test.
  ::kill(pid_, SIGKILL);
  wait_exit(pid_, std::chrono::seconds(5));
  pid_ = -1;
  throw std::runtime_error("agentd did not log 'listening' in time; stderr:\n" + stderr_text());
}

void AgentdProcess::remember_config_secrets(const std::string& path) const {
  std::ifstream in(path);
  remember_secret_refs(nlohmann::json::parse(in, nullptr, false), env_);
}

// Every body agentd answers is searched for the secrets the tests gave it; only the
// issue of a token answers with one, its own.
HttpResponse AgentdProcess::request(const std::string& method, const std::string& target,
                                    const std::string& body, const Headers& headers) const {
  remember_secret_refs(nlohmann::json::parse(body, nullptr, false), env_);
  HttpResponse response = http_request(port_, method, target, body, headers);
  const bool issues_token = method == "POST" && target.size() >= 13 &&
                            target.compare(target.size() - 13, 13, "/admin/tokens") == 0;
  if (issues_token && response.status == 201) {
    remember_secret(response.json().value("token", ""));
  } else if (const std::string leaked = leaked_secret(response.body); !leaked.empty()) {
    ADD_FAILURE() << method << " " << target << " answered a secret the test gave agentd ("
                  << leaked.substr(0, 4) << "...):\n"
                  << response.body;
  }
  return response;
}

int AgentdProcess::stop(int signal, std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return -1;
  ::kill(pid_, signal);
  std::optional<int> code = wait_exit(pid_, timeout);
  if (!code) {
    ::kill(pid_, SIGKILL);
    wait_exit(pid_, std::chrono::seconds(10));
    code = -1;
  }
  pid_ = -1;
  const std::string err = stderr_text();
  if (err.find("Sanitizer") != std::string::npos || err.find("runtime error:") != std::string::npos)
    ADD_FAILURE() << "agentd reported a sanitizer error:\n" << err;
  if (const std::string leaked = leaked_secret(without_admin_banner(err)); !leaked.empty())
    ADD_FAILURE() << "agentd's log holds a secret the test gave it (" << leaked.substr(0, 4)
                  << "...):\n"
                  << err;
  return *code;
}

bool AgentdProcess::running() {
  if (pid_ <= 0) return false;
  if (wait_exit(pid_, std::chrono::milliseconds(0))) {
    pid_ = -1;
    return false;
  }
  return true;
}

std::string AgentdProcess::stderr_text() const {
  return read_file(stderr_path_);
}

namespace {

size_t entries_of(const std::string& directory) {
  size_t count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(directory)) ++count;
  return count;
}

}  // namespace

size_t AgentdProcess::open_descriptors() const {
  return entries_of("/proc/" + std::to_string(pid_) + "/fd");
}

size_t AgentdProcess::threads() const {
  return entries_of("/proc/" + std::to_string(pid_) + "/task");
}

std::vector<nlohmann::json> AgentdProcess::log_lines() const {
  return json_lines(stderr_text());
}

bool AgentdProcess::wait_for_log(const std::function<bool(const nlohmann::json&)>& match,
                                 std::chrono::milliseconds timeout) const {
  const auto deadline = Clock::now() + timeout;
  do {
    for (const nlohmann::json& line : log_lines()) {
      if (match(line)) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while (Clock::now() < deadline);
  return false;
}

CommandResult run_agentd(const std::vector<std::string>& args, const Environment& env,
                         std::chrono::milliseconds timeout) {
  TempDir temp;
  std::vector<std::string> argv{agentd_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  const std::string out = temp.path() + "/stdout", err = temp.path() + "/stderr";
  const pid_t pid = spawn(argv, env, temp.path(), out, err);
  std::optional<int> code = wait_exit(pid, timeout);
  if (!code) {
    ::kill(pid, SIGKILL);
    wait_exit(pid, std::chrono::seconds(10));
    code = -1;
  }
  return {*code, read_file(out), read_file(err)};
}

}  // namespace agentrt::test
