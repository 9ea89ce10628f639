// A path's real place: symbolic links followed, `.` and `..` resolved (realpath(3));
// none when the path does not exist. The secrets fence and the plugin file checks both
// judge a path by where it really leads.
#pragma once

#include <optional>
#include <string>

namespace agentrt::core {

std::optional<std::string> real_path(const std::string& path);

}  // namespace agentrt::core
