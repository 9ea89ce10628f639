// Claims of tokens verified lately, so a busy client's every request does not cost an
// auth-module call (a JSON round trip, a SHA-256 and a database lookup: 4% of agentd's
// CPU per /chat). Only claims the module marked reusable ("cache_s") are kept, never
// past that time, and a revocation through this host drops them at once: the module
// vouches that nothing else can revoke its tokens meanwhile.
#pragma once

#include "core/auth/principal.h"

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace agentrt::core {

class VerifiedTokens {
 public:
  using Clock = std::chrono::steady_clock;
  // Bounds memory: a full cache is emptied and refills with the tokens in use.
  static constexpr size_t kMaxEntries = 8192;
  static constexpr std::chrono::seconds kMaxReuse{300};

  std::optional<Principal> find(const std::string& token, Clock::time_point now = Clock::now());

  // Read before asking the module; remember() then keeps nothing if a revocation
  // happened meanwhile (its claims could predate the revocation).
  uint64_t epoch() const;
  void remember(const std::string& token, const Principal& who, std::chrono::seconds reuse,
                uint64_t epoch_before, Clock::time_point now = Clock::now());

  void forget_token_id(const std::string& token_id);
  void forget_cell(const std::string& cell);

  size_t size() const;

 private:
  struct Entry {
    Principal who;
    Clock::time_point until;
  };
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;  // by the token itself
  uint64_t epoch_ = 0;
};

}  // namespace agentrt::core
