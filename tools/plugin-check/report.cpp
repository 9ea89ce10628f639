#include "tools/plugin-check/report.h"

#include <nlohmann/json.hpp>

#include <map>

namespace agentrt::plugin_check {

bool Report::passed() const {
  for (const CheckLine& line : checks)
    if (line.result == Result::fail) return false;
  return !checks.empty();
}

std::string report_text(const Report& report) {
  std::string text = "agentrt-plugin-check " + report.path + "\n";
  if (!report.plugin.empty())
    text += "plugin " + report.plugin + ", kind " + report.kind + ", ABI " + report.abi + "\n";
  std::map<Result, int> tally;
  for (const CheckLine& line : report.checks) {
    ++tally[line.result];
    text += std::string(result_name(line.result)) + " " + line.name;
    if (!line.detail.empty()) text += ": " + line.detail;
    text += "\n";
  }
  text += std::string(report.passed() ? "PASSED" : "FAILED") + " (" +
          std::to_string(tally[Result::pass]) + " passed, " + std::to_string(tally[Result::warn]) +
          " warned, " + std::to_string(tally[Result::fail]) + " failed, " +
          std::to_string(tally[Result::skip]) + " skipped)\n";
  return text;
}

std::string report_json(const Report& report) {
  nlohmann::json checks = nlohmann::json::array();
  for (const CheckLine& line : report.checks)
    checks.push_back(
        {{"name", line.name}, {"result", result_name(line.result)}, {"detail", line.detail}});
  // A plugin's message may hold bytes that are not UTF-8; they must not stop the report.
  return nlohmann::json{{"plugin", report.plugin}, {"path", report.path},
                        {"kind", report.kind},     {"abi", report.abi},
                        {"checks", checks},        {"passed", report.passed()}}
             .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n";
}

}  // namespace agentrt::plugin_check
