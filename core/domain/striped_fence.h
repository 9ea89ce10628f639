// A fence per key (a cell, a session) that orders a deletion against the writes it
// cannot see from its own transaction: writes hold it shared from their check that
// the thing exists to their end; the deletion closes it (exclusive) around the
// deleting. A write thus either ends before the deletion starts, and is deleted with
// it, or starts after it and finds nothing to write to.
#pragma once

#include <array>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <string>

namespace agentrt::core {

class StripedFence {
 public:
  using Hold = std::shared_lock<std::shared_mutex>;
  using Closed = std::unique_lock<std::shared_mutex>;

  Hold hold(const std::string& key) const { return Hold(stripe(key)); }
  Closed close(const std::string& key) const { return Closed(stripe(key)); }

 private:
  // Striped, so that a deletion stalls the writes of few other keys, and never all.
  std::shared_mutex& stripe(const std::string& key) const {
    return stripes_[std::hash<std::string>{}(key) % stripes_.size()];
  }
  mutable std::array<std::shared_mutex, 32> stripes_;
};

}  // namespace agentrt::core
