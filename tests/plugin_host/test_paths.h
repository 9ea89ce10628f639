#pragma once

#include <string>

namespace agentrt::test {

inline std::string fixture(const std::string& name) {
  return std::string(AGENTRT_TEST_FIXTURE_DIR) + "/" + name + ".so";
}
inline std::string bundled(const std::string& name) {
  return std::string(AGENTRT_TEST_BUNDLED_DIR) + "/agentrt-" + name + ".so";
}

}  // namespace agentrt::test
