// The JavaScript clients the API tests run unmodified against agentd (the `openai` SDK,
// the `eventsource` package): installed with npm once into the build tree
// (tests/api/js/install.sh), and their scripts (tests/api/js/*.mjs) run with node.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>

#include <sys/wait.h>

namespace agentrt::test {

struct JsClients {
  bool absent = false;  // npm or node is not on this machine: the tests skip
  std::string why;      // empty when the clients are installed
};

inline const JsClients& js_clients() {
  static const JsClients clients = [] {
    const std::string command =
        "'" AGENTRT_TEST_JS_SOURCE "/install.sh' '" AGENTRT_TEST_JS_MODULES "'";
    const int rc = std::system(command.c_str());
    if (rc == 0) return JsClients{};
    if (WIFEXITED(rc) && WEXITSTATUS(rc) == 3)
      return JsClients{true, "npm or node is not installed: the JavaScript clients cannot be"};
    return JsClients{false, "installing the JavaScript clients failed (" + command + ")"};
  }();
  return clients;
}

// Runs `command` through the shell: its exit status and everything it wrote.
inline std::pair<int, std::string> run_command(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string output;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

// The path of script `name` placed beside the installed modules: node resolves an ES
// module's imports from the script's own place.
inline std::string js_script(const std::string& name) {
  const std::string script = std::string(AGENTRT_TEST_JS_MODULES) + "/" + name;
  std::filesystem::copy_file(std::string(AGENTRT_TEST_JS_SOURCE) + "/" + name, script,
                             std::filesystem::copy_options::overwrite_existing);
  return script;
}

}  // namespace agentrt::test
