// JSON string literals, written the one way both core and plugins write them.
#pragma once

#include <string>
#include <string_view>

namespace agentrt::text {

// Appends `text` as a JSON string literal, quotes included, in the form nlohmann's dump
// writes with ensure_ascii off: the quote, the backslash and control characters escaped
// (\b \f \n \r \t, the others as \u00xx), every other character as it is. Ill-formed
// UTF-8 is replaced by U+FFFD, one for each maximal subpart (what nlohmann's `replace`
// error handler does), so the output is always valid JSON: a provider's broken bytes
// never fail a run halfway through.
void append_json_string(std::string& out, std::string_view text);

}  // namespace agentrt::text
