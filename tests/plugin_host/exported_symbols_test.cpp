// Every plugin, bundled or fixture, exports exactly one dynamic symbol: the query
// function. Anything more leaks the plugin's internals into the host's namespace.
#include "tests/plugin_host/test_paths.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <sstream>

namespace {

std::vector<std::string> defined_dynamic_symbols(const std::string& path) {
  std::string command = "nm -D --defined-only '" + path + "' 2>&1";
  std::vector<std::string> symbols;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return symbols;
  std::array<char, 512> line{};
  while (fgets(line.data(), line.size(), pipe)) {
    std::istringstream fields(line.data());
    std::string address, type, name;
    fields >> address >> type >> name;
    symbols.push_back(name.empty() ? address : name);
  }
  EXPECT_EQ(pclose(pipe), 0) << "nm failed on " << path;
  return symbols;
}

std::vector<std::string> plugins_in(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".so" && entry.path().filename() != "garbage.so" &&
        entry.path().filename() != "not-a-plugin.so")
      files.push_back(entry.path().string());
  return files;
}

TEST(ExportedSymbols, EveryPluginExportsOnlyTheQueryFunction) {
  std::vector<std::string> files = plugins_in(AGENTRT_TEST_BUNDLED_DIR);
  ASSERT_FALSE(files.empty()) << "no bundled plugins found";
  for (const auto& f : plugins_in(AGENTRT_TEST_FIXTURE_DIR)) files.push_back(f);
  for (const std::string& file : files) {
    std::vector<std::string> symbols = defined_dynamic_symbols(file);
    ASSERT_EQ(symbols.size(), 1u) << file << " exports " << symbols.size() << " symbols";
    EXPECT_EQ(symbols[0], "agentrt_plugin_query") << file;
  }
}

}  // namespace
