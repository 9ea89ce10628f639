// The JSON boundary the storage plugins share: every config and request arrives as
// JSON text that must hold an object.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace agentrt::plugin_sqlite {

// Throws INVALID_ARGUMENT. Callers name the offending field and never repeat a value,
// since a value may be a token or a memory.
[[noreturn]] void invalid_request(const std::string& message);

// Parses `text` (empty reads as "{}", so an operation without parameters may send
// nothing); throws invalid_request naming `what` unless it is a JSON object.
nlohmann::json parse_request_object(const std::string& text, const char* what);

}  // namespace agentrt::plugin_sqlite
