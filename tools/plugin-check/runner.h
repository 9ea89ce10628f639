// Runs the checks in child processes, so that a plugin that crashes or hangs fails its
// check instead of taking the tool down: a fresh child then goes on with the next.
#pragma once

#include "tools/plugin-check/report.h"

namespace agentrt::plugin_check {

Report run_checks(const Options& options);

}  // namespace agentrt::plugin_check
