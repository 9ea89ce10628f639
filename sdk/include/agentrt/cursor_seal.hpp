// Header-only C++17 helper (since ABI 1.7) for opaque list cursors.
//
// A list that pages by a row's position (an SQLite rowid, say) and hands that position
// out as its cursor tells whoever holds two of its cursors how many rows anybody wrote
// between them: across actors and tenants, since such counters span the store. A
// cursor sealed here carries the position enciphered under a secret key (XTEA, 64-bit
// block, 128-bit key), so it reads as 16 random hex digits.
//
// The host passes its key, which it keeps for the life of the data dir, to memory
// backends and auth modules as "cursor_key" (32 hex digits) in their create config,
// so that their cursors outlive a restart like the host's own do.
#ifndef AGENTRT_CURSOR_SEAL_HPP
#define AGENTRT_CURSOR_SEAL_HPP

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::sdk {

class CursorSeal {
 public:
  // Under an all-zero key: a position is hidden from a glance, not from anyone who reads
  // this header. Use from_hex for a real key.
  CursorSeal() = default;

  // A seal under the key `hex` spells (32 hex digits), or nullopt for any other text.
  static std::optional<CursorSeal> from_hex(std::string_view hex) {
    if (hex.size() != 32) return std::nullopt;
    CursorSeal seal;
    for (size_t i = 0; i < hex.size(); ++i) {
      const int digit = hex_digit(hex[i]);
      if (digit < 0) return std::nullopt;
      seal.key_[i / 8] = (seal.key_[i / 8] << 4) | static_cast<uint32_t>(digit);
    }
    return seal;
  }

  // 16 lowercase hex digits for `position`, which must be below 2^48 for open() to take
  // the cursor back.
  std::string seal(uint64_t position) const {
    uint32_t v[2] = {static_cast<uint32_t>(position >> 32), static_cast<uint32_t>(position)};
    encipher(v);
    const uint64_t sealed = (static_cast<uint64_t>(v[0]) << 32) | v[1];
    std::string out(16, '0');
    for (int i = 15; i >= 0; --i)
      out[static_cast<size_t>(15 - i)] = kHex[(sealed >> (i * 4)) & 0xf];
    return out;
  }

  // The position `sealed` was made from, or nullopt for text seal() did not write under
  // this key. A forgery passes with odds of 1 in 65,536, and then names some position of
  // the forger's own list.
  std::optional<uint64_t> open(std::string_view sealed) const {
    if (sealed.size() != 16) return std::nullopt;
    uint64_t value = 0;
    for (const char c : sealed) {
      const int digit = hex_digit(c);
      if (digit < 0 || (c >= 'A' && c <= 'F')) return std::nullopt;  // one spelling only
      value = (value << 4) | static_cast<uint64_t>(digit);
    }
    uint32_t v[2] = {static_cast<uint32_t>(value >> 32), static_cast<uint32_t>(value)};
    decipher(v);
    const uint64_t position = (static_cast<uint64_t>(v[0]) << 32) | v[1];
    if (position >> 48 != 0) return std::nullopt;
    return position;
  }

 private:
  static constexpr char kHex[] = "0123456789abcdef";
  static constexpr uint32_t kDelta = 0x9E3779B9u;
  static constexpr unsigned kCycles = 32;

  static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  // XTEA (Needham and Wheeler, 1997), 32 cycles.
  void encipher(uint32_t v[2]) const {
    uint32_t v0 = v[0], v1 = v[1], sum = 0;
    for (unsigned i = 0; i < kCycles; ++i) {
      v0 += (((v1 << 4) ^ (v1 >> 5)) + v1) ^ (sum + key_[sum & 3]);
      sum += kDelta;
      v1 += (((v0 << 4) ^ (v0 >> 5)) + v0) ^ (sum + key_[(sum >> 11) & 3]);
    }
    v[0] = v0;
    v[1] = v1;
  }
  void decipher(uint32_t v[2]) const {
    uint32_t v0 = v[0], v1 = v[1], sum = kDelta * kCycles;
    for (unsigned i = 0; i < kCycles; ++i) {
      v1 -= (((v0 << 4) ^ (v0 >> 5)) + v0) ^ (sum + key_[(sum >> 11) & 3]);
      sum -= kDelta;
      v0 -= (((v1 << 4) ^ (v1 >> 5)) + v1) ^ (sum + key_[sum & 3]);
    }
    v[0] = v0;
    v[1] = v1;
  }

  std::array<uint32_t, 4> key_{};
};

}  // namespace agentrt::sdk

#endif  // AGENTRT_CURSOR_SEAL_HPP
