// The token string: "art_" + 16 lowercase hex (the public id) + 43 base64url chars
// (32 random bytes, the secret). The id lets verify load one row by primary key; the
// secret is never stored, only its SHA-256.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::auth_token {

inline constexpr std::string_view kTokenPrefix = "art_";
inline constexpr size_t kTokenIdLength = 16;
inline constexpr size_t kSecretBytes = 32;
inline constexpr size_t kSecretLength = 43;  // base64url of 32 bytes, unpadded
inline constexpr size_t kTokenLength = 4 + kTokenIdLength + kSecretLength;

struct TokenParts {
  std::string id;
  std::string secret;  // the base64url text, as it appears in the token
};

struct NewToken {
  TokenParts parts;
  std::string token;
};

NewToken generate_token();

// nullopt when the prefix, length or any character is wrong.
std::optional<TokenParts> parse_token(std::string_view token);

bool is_token_id(std::string_view text);

using Sha256Digest = std::array<uint8_t, 32>;

// The SHA-256 (OpenSSL's) of the secret's base64url text, the form auth.db stores.
Sha256Digest hash_secret(std::string_view secret);

// Touches every byte whatever the contents (OpenSSL's CRYPTO_memcmp), so the time
// taken says nothing about where two digests first differ.
bool constant_time_equal(const Sha256Digest& a, const Sha256Digest& b);

}  // namespace agentrt::auth_token
