// Orders a cell's deletion against the writes that its deleting transaction cannot
// see: those of plugins with their own storage (memory, tokens), and a run that was
// checked against the cell before the deletion but registered as live after it.
// Such a write holds the cell's fence (shared) from its check that the cell exists to
// its end; a deletion closes the fence (exclusive) from its start to its last cleanup.
// A write therefore either ends before the deletion starts, and is cleaned up with
// the cell, or starts after it, and finds no cell; nothing of it can come back in a
// cell created again under the same id, as a write admitted before the deletion names
// the incarnation it was admitted to (Principal::cell_seq).
#pragma once

#include "core/domain/striped_fence.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace agentrt::core {

using CellFence = StripedFence;

// The cell's fence, held, if the cell exists, and is the incarnation `seq` names when
// one is given (Principal::cell_seq); nothing otherwise.
using CellHold = std::function<std::optional<CellFence::Hold>(const std::string& cell,
                                                              std::optional<int64_t> seq)>;

}  // namespace agentrt::core
