// What the checks found, printed as lines for a person or as one JSON object.
#pragma once

#include "tools/plugin-check/checks.h"

#include <string>
#include <vector>

namespace agentrt::plugin_check {

struct CheckLine {
  std::string name;
  Result result;
  std::string detail;
};

struct Report {
  std::string path, plugin, kind, abi;
  std::vector<CheckLine> checks;
  bool passed() const;  // no FAIL (a WARN passes)
};

std::string report_text(const Report& report);
std::string report_json(const Report& report);

}  // namespace agentrt::plugin_check
