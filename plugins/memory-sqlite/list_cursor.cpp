#include "list_cursor.h"

namespace agentrt::memory_sqlite {
namespace {

// "m2" names the format (m1 carried the number in the clear), so a later change can
// tell old cursors apart.
constexpr std::string_view kPrefix = "m2";

}  // namespace

std::string encode_cursor(int64_t seq, const sdk::CursorSeal& seal) {
  return std::string(kPrefix) + seal.seal(static_cast<uint64_t>(seq));
}

std::optional<int64_t> decode_cursor(std::string_view cursor, const sdk::CursorSeal& seal) {
  if (cursor.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  std::optional<uint64_t> seq = seal.open(cursor.substr(kPrefix.size()));
  // Sequence numbers start at 1.
  if (!seq || *seq == 0) return std::nullopt;
  return static_cast<int64_t>(*seq);
}

}  // namespace agentrt::memory_sqlite
