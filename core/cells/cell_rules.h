// What makes a cell's fields valid. Pure functions, so the rules are testable alone.
#pragma once

#include <string>

namespace agentrt::core {

// 1 to 63 characters of [a-z0-9_-], starting with a letter or digit.
bool valid_cell_id(const std::string& id);

// An IANA zone that exists in the system's zone database (TZDIR or
// /usr/share/zoneinfo): a TZif file, reached without "..".
bool valid_timezone(const std::string& name);

// A BCP 47 language tag: language[-script][-region][-variant...], e.g. en-US,
// zh-Hans-CN, de-CH-1996. Well-formed, not checked against the registry.
bool valid_locale(const std::string& tag);

}  // namespace agentrt::core
