// Text a client sent back to it or into the log, with any bundled token in it cut to
// "art_[redacted]": a token pasted where an id belongs would otherwise be echoed whole by
// error messages and the access log.
#pragma once

#include <string>
#include <string_view>

namespace agentrt::server {

// `text` itself when it holds no token shape, else `scratch` filled with the redacted
// copy. A token shape is "art_" and more than a token id's 16 characters of the token
// alphabet (letters, digits, '-', '_'), so an id ("art_" and 16 hex digits) stays.
std::string_view redact_token_shapes(std::string_view text, std::string& scratch);

}  // namespace agentrt::server
