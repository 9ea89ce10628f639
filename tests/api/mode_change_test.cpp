// A data dir moved from single-cell to multi-cell mode, as the operator guide allows: the
// tokens issued in single mode name no cell, and a token of no cell is valid in every
// cell, so each then reaches every tenant, those made later too. agentd says so at the
// first multi-cell start, once.
#include "tests/api/admin_client.h"

#include <gtest/gtest.h>

#include <csignal>

namespace agentrt::test {
namespace {

using nlohmann::json;

constexpr const char* kWarning = "this data dir was last served in single-cell mode";

AgentdOptions on(const std::string& dir, const std::string& mode) {
  AgentdOptions options;
  options.private_data_dir = false;
  options.args = {"--data-dir", dir, "--mode", mode};
  return options;
}

bool warned(AgentdProcess& agentd) {
  EXPECT_EQ(agentd.stop(SIGTERM), 0);
  for (const json& line : agentd.log_lines())
    if (line.value("msg", "").rfind(kWarning, 0) == 0 && line.value("level", "") == "warn")
      return true;
  return false;
}

TEST(ModeChange, TheFirstMultiCellStartAfterSingleWarnsOfTokensWithNoCell) {
  TempDir dir;
  const std::string data_dir = dir.path() + "/data";
  {
    AgentdProcess single(on(data_dir, "single"));
    const std::string admin = first_admin_token(single);
    EXPECT_TRUE(issue_token(single, admin, {{"actor", "alice"}, {"ttl", "1h"}})["cell"].is_null());
    EXPECT_FALSE(warned(single));
  }
  {
    AgentdProcess single_again(on(data_dir, "single"));
    EXPECT_FALSE(warned(single_again));
  }
  {
    AgentdProcess multi(on(data_dir, "multi"));
    EXPECT_TRUE(warned(multi)) << multi.stderr_text();
  }
  AgentdProcess multi_again(on(data_dir, "multi"));
  EXPECT_FALSE(warned(multi_again)) << "once, at the move";
}

}  // namespace
}  // namespace agentrt::test
