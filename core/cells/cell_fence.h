// Orders a cell's deletion against the writes that its deleting transaction cannot
// see: those of plugins with their own storage (memory, tokens), and a run that was
// checked against the cell before the deletion but registered as live after it.
// Such a write holds the cell's fence (shared) from its check that the cell exists to
// its end; a deletion closes the fence (exclusive) from its start to its last cleanup.
// A write therefore either ends before the deletion starts, and is cleaned up with
// the cell, or starts after it, and finds no cell; nothing of it can come back in a
// cell created again under the same id.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>

namespace agentrt::core {

class CellFence {
 public:
  using Hold = std::shared_lock<std::shared_mutex>;
  using Closed = std::unique_lock<std::shared_mutex>;

  Hold hold(const std::string& cell) const { return Hold(stripe(cell)); }
  Closed close(const std::string& cell) const { return Closed(stripe(cell)); }

 private:
  // Striped, so that deleting a cell stalls the writes of few others, and never all.
  std::shared_mutex& stripe(const std::string& cell) const {
    return stripes_[std::hash<std::string>{}(cell) % stripes_.size()];
  }
  mutable std::array<std::shared_mutex, 32> stripes_;
};

// The cell's fence, held, if the cell exists, and is the incarnation `seq` names when
// one is given (Principal::cell_seq); nothing otherwise.
using CellHold = std::function<std::optional<CellFence::Hold>(const std::string& cell,
                                                              std::optional<int64_t> seq)>;

}  // namespace agentrt::core
