#include "token_format.h"

#include "base64url.h"
#include "random_bytes.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <agentrt/plugin.hpp>

#include <cstdint>

namespace agentrt::auth_token {
namespace {

bool is_lower_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

std::string random_hex_id() {
  uint8_t bytes[kTokenIdLength / 2];
  random_bytes(bytes, sizeof bytes);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  for (uint8_t b : bytes) {
    id.push_back(kHex[b >> 4]);
    id.push_back(kHex[b & 0xf]);
  }
  return id;
}

}  // namespace

NewToken generate_token() {
  NewToken t;
  t.parts.id = random_hex_id();
  std::string raw(kSecretBytes, '\0');
  random_bytes(raw.data(), raw.size());
  t.parts.secret = base64url_encode(raw);
  t.token = std::string(kTokenPrefix) + t.parts.id + t.parts.secret;
  return t;
}

bool is_token_id(std::string_view text) {
  if (text.size() != kTokenIdLength) return false;
  for (char c : text)
    if (!is_lower_hex(c)) return false;
  return true;
}

std::optional<TokenParts> parse_token(std::string_view token) {
  if (token.size() != kTokenLength || token.substr(0, kTokenPrefix.size()) != kTokenPrefix)
    return std::nullopt;
  std::string_view id = token.substr(kTokenPrefix.size(), kTokenIdLength);
  std::string_view secret = token.substr(kTokenPrefix.size() + kTokenIdLength);
  if (!is_token_id(id)) return std::nullopt;
  for (char c : secret)
    if (!is_base64url_char(c)) return std::nullopt;
  return TokenParts{std::string(id), std::string(secret)};
}

Sha256Digest hash_secret(std::string_view secret) {
  Sha256Digest digest{};
  unsigned int size = 0;
  if (EVP_Digest(secret.data(), secret.size(), digest.data(), &size, EVP_sha256(), nullptr) != 1 ||
      size != digest.size())
    throw sdk::Error(AGENTRT_ERR_INTERNAL, "auth-token: OpenSSL could not compute SHA-256");
  return digest;
}

bool constant_time_equal(const Sha256Digest& a, const Sha256Digest& b) {
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace agentrt::auth_token
