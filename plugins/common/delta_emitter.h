// The order the engine relies on, enforced in one place: text fragments, then at most
// one usage delta, then exactly one finish delta. A sink that says "stop" turns into
// Error(AGENTRT_ERR_CANCELLED), which unwinds the transfer.
#pragma once

#include <agentrt/plugin.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::providers {

struct Usage {
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;

  bool operator==(const Usage& other) const {
    return input_tokens == other.input_tokens && output_tokens == other.output_tokens;
  }
};

class DeltaEmitter {
 public:
  explicit DeltaEmitter(sdk::Sink& sink) : sink_(sink) {}

  // Sends a text fragment; empty fragments are skipped.
  void text(std::string_view fragment);

  // Ends the completion: usage when the upstream reported it (never invented
  // zeros: without usage the engine estimates), then the finish reason.
  void finish(const std::optional<Usage>& usage, const std::string& reason);

  bool finished() const { return finished_; }

 private:
  sdk::Sink& sink_;
  bool finished_ = false;
};

}  // namespace agentrt::providers
