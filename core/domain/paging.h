// Lists answer {"data":[...],"next_cursor":<string|null>}, newest first. A cursor is
// opaque to clients; inside it is the position of the last row served, sealed.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace agentrt::core {

constexpr int kDefaultPageLimit = 50;
constexpr int kMaxPageLimit = 500;

struct PageRequest {
  int limit = kDefaultPageLimit;
  std::optional<int64_t> after;  // the position the cursor carries; none = first page
};

// From the query parameters' raw values; throws invalid() naming `limit` or `cursor`.
PageRequest parse_page_request(const std::optional<std::string>& limit,
                               const std::optional<std::string>& cursor);

// Cursors carry the position sealed (agentrt/cursor_seal.hpp) under the key set here,
// the data dir's, which the engine sets as it starts; until then an all-zero key.
void use_cursor_key(const std::string& hex_key);  // 32 hex digits; false ones are ignored
std::string encode_cursor(int64_t position);
std::optional<int64_t> decode_cursor(const std::string& cursor);

// {"data": rows, "next_cursor": cursor of `last_position` when there may be more}.
nlohmann::json page_body(nlohmann::json rows, bool more, int64_t last_position);

}  // namespace agentrt::core
