// The list cursor reader (core/domain/paging.h) on any text: a cursor and a `limit` as
// a query string gives them, "<limit>&<cursor>" (no "&": the whole input is the
// cursor). Besides not crashing:
//   - a cursor it opens is one it wrote: sealing its position gives the same text
//     back, and the position is below 2^48;
//   - a position sealed opens to itself, under the all-zero key and a key of the input's;
//   - a limit it takes is 1 to kMaxPageLimit; it refuses the rest, and an unknown cursor,
//     as invalid (a 400) naming the parameter.
#include "core/domain/errors.h"
#include "core/domain/paging.h"
#include "fuzz/fuzz_support.h"

#include <cstring>
#include <string>
#include <string_view>

namespace {

using namespace agentrt::core;

const std::string kZeroKey(32, '0');

void check_cursor(const std::string& cursor) {
  const std::optional<int64_t> position = decode_cursor(cursor);
  if (!position) return;
  FUZZ_CHECK(*position >= 0 && *position < (int64_t(1) << 48), "a position is below 2^48");
  FUZZ_CHECK(encode_cursor(*position) == cursor, "a cursor opened seals to itself");
}

void check_page_request(const std::optional<std::string>& limit,
                        const std::optional<std::string>& cursor) {
  try {
    const PageRequest page = parse_page_request(limit, cursor);
    FUZZ_CHECK(page.limit >= 1 && page.limit <= kMaxPageLimit, "a limit is in range");
    FUZZ_CHECK(cursor.has_value() == page.after.has_value(), "a cursor gives a position");
  } catch (const DomainError& e) {
    FUZZ_CHECK(e.kind() == ErrorKind::invalid, "a page request is refused as invalid");
    const std::string_view message = e.what();
    FUZZ_CHECK(message.find("'limit'") != std::string_view::npos ||
                   message.find("'cursor'") != std::string_view::npos,
               "a refusal names the parameter");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  use_cursor_key(kZeroKey);
  const size_t amp = input.find('&');
  const std::optional<std::string> limit =
      amp == std::string::npos ? std::nullopt : std::optional<std::string>(input.substr(0, amp));
  const std::string cursor = amp == std::string::npos ? input : input.substr(amp + 1);
  check_cursor(cursor);
  check_page_request(limit, cursor);
  check_page_request(limit, std::nullopt);

  uint64_t bits = 0;
  std::memcpy(&bits, input.data(), std::min(input.size(), sizeof bits));
  const int64_t position = static_cast<int64_t>(bits & ((uint64_t(1) << 48) - 1));
  FUZZ_CHECK(decode_cursor(encode_cursor(position)) == position, "a position sealed opens");
  if (input.size() >= 32) {
    use_cursor_key(input.substr(0, 32));  // ignored unless 32 hex digits
    FUZZ_CHECK(decode_cursor(encode_cursor(position)) == position, "so under any key");
    check_cursor(cursor);
  }
  return 0;
}
