#include "core/domain/paging.h"

#include "core/domain/errors.h"

#include <agentrt/cursor_seal.hpp>

#include <mutex>
#include <string_view>

namespace agentrt::core {
namespace {

// "c" and the sealed position: 17 characters. The seal is its own check, so a hand-made
// or truncated cursor is refused instead of silently paging from somewhere else.
constexpr char kPrefix = 'c';

std::mutex seal_mutex;
sdk::CursorSeal current_seal;

sdk::CursorSeal seal() {
  std::lock_guard<std::mutex> lock(seal_mutex);
  return current_seal;
}

}  // namespace

void use_cursor_key(const std::string& hex_key) {
  std::optional<sdk::CursorSeal> keyed = sdk::CursorSeal::from_hex(hex_key);
  if (!keyed) return;
  std::lock_guard<std::mutex> lock(seal_mutex);
  current_seal = *keyed;
}

std::string encode_cursor(int64_t position) {
  return kPrefix + seal().seal(static_cast<uint64_t>(position));
}

std::optional<int64_t> decode_cursor(const std::string& cursor) {
  if (cursor.size() != 17 || cursor[0] != kPrefix) return std::nullopt;
  std::optional<uint64_t> position = seal().open(std::string_view(cursor).substr(1));
  if (!position) return std::nullopt;
  return static_cast<int64_t>(*position);
}

PageRequest parse_page_request(const std::optional<std::string>& limit,
                               const std::optional<std::string>& cursor) {
  PageRequest page;
  if (limit) {
    bool digits = !limit->empty() && limit->size() <= 6 &&
                  limit->find_first_not_of("0123456789") == std::string::npos;
    int value = digits ? std::stoi(*limit) : 0;
    if (value < 1 || value > kMaxPageLimit)
      throw invalid("query parameter 'limit' must be an integer from 1 to " +
                    std::to_string(kMaxPageLimit));
    page.limit = value;
  }
  if (cursor) {
    page.after = decode_cursor(*cursor);
    if (!page.after) throw invalid("query parameter 'cursor' is not a cursor this server issued");
  }
  return page;
}

nlohmann::json page_body(nlohmann::json rows, bool more, int64_t last_position) {
  return {{"data", std::move(rows)},
          {"next_cursor", more ? nlohmann::json(encode_cursor(last_position)) : nlohmann::json()}};
}

}  // namespace agentrt::core
