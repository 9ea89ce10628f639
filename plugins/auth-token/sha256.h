// SHA-256 (FIPS 180-4), written here because plugins may not link OpenSSL and the
// auth module needs nothing more than a one-shot digest of a short secret.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace agentrt::auth_token {

using Sha256Digest = std::array<uint8_t, 32>;

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t len);
  // Pads and returns the digest; the object must not be updated afterwards.
  Sha256Digest finish();

 private:
  void compress(const uint8_t* block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

Sha256Digest sha256(std::string_view data);

}  // namespace agentrt::auth_token
