// The streams open on each token, so that revoking a token ends them: a revocation is
// effective at once (docs/openapi.yaml, revokeToken), and a stream is access for as long
// as it stays open. A stream holds a lease for its life; revoking the token marks the
// lease and runs its `on_revoke` (a /run stream's: cancel its run).
//
// A request verified just before a revocation may take its lease just after it, so
// the ids revoked lately are kept, and a lease taken on one of them is born revoked.
#pragma once

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace agentrt::core {

class TokenLeases {
 public:
  // How many revoked ids are kept for leases taken late. A request's verification and
  // its lease are microseconds apart; this many revocations within them is not seen.
  static constexpr size_t kRecentRevocations = 64;

  class Lease {
   public:
    Lease() = default;  // no token: never revoked
    Lease(Lease&& other) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease();

    // From any thread; one atomic load.
    bool revoked() const { return state_ != nullptr && state_->revoked.load(); }

   private:
    friend class TokenLeases;
    struct State {
      std::atomic<bool> revoked{false};
      std::function<void()> on_revoke;
      // The token's other leases, newest first, under the owner's mutex: a lease
      // leaves its token's list in constant time, however many streams share the
      // token (a service's one token can carry thousands).
      State* newer = nullptr;
      State* older = nullptr;
    };
    Lease(TokenLeases* owner, std::string token_id, std::unique_ptr<State> state)
        : owner_(owner), token_id_(std::move(token_id)), state_(std::move(state)) {}

    TokenLeases* owner_ = nullptr;  // null: not registered
    std::string token_id_;
    std::unique_ptr<State> state_;
  };

  // `on_revoke` runs once, on the revoking thread (or at once, for a token revoked
  // lately); it must not take a lease or revoke.
  Lease hold(const std::string& token_id, std::function<void()> on_revoke = {});
  // Marks every lease on `token_id` revoked and runs their on_revoke; returns how many.
  size_t revoke(const std::string& token_id);

  // Leases held now, counted (for tests and diagnostics; no request asks).
  size_t open() const;

 private:
  void release(const std::string& token_id, Lease::State* state);
  bool revoked_lately(const std::string& token_id) const;  // under mutex_

  mutable std::mutex mutex_;
  // Each token's newest lease, the head of its list; each state is owned by its lease.
  std::unordered_map<std::string, Lease::State*> held_;
  std::array<std::string, kRecentRevocations> recent_;
  size_t next_recent_ = 0;
};

}  // namespace agentrt::core
