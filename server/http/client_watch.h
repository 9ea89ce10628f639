// Whether the client of a long request is still there, asked at most every `every`: a
// probe is a system call (recv with MSG_PEEK), and a run asks at each pause of its
// provider, which for a stream of deltas is every delta.
#pragma once

#include <chrono>
#include <functional>

namespace agentrt::server {

class ClientWatch {
 public:
  static constexpr std::chrono::milliseconds kProbeInterval{250};

  // `closed` may be empty: the client is then never taken for gone.
  explicit ClientWatch(std::function<bool()> closed,
                       std::chrono::milliseconds every = kProbeInterval);

  // Once gone, always gone.
  bool gone();

 private:
  std::function<bool()> closed_;
  std::chrono::milliseconds every_;
  std::chrono::steady_clock::time_point last_probe_;
  bool gone_ = false;
};

}  // namespace agentrt::server
