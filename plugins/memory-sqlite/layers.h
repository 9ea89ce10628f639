// The seven memory layers and their storage codes. The codes are part of the on-disk
// format: they never change, and the two shared layers come first so that "shared" is
// a simple `layer < kFirstPersonalLayer` test in SQL.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace agentrt::memory_sqlite {

inline constexpr int kLayerCount = 7;
inline constexpr int kSessionLayer = 4;
inline constexpr int kUnknownLayer = 6;
inline constexpr int kFirstPersonalLayer = 2;

// Indexed by code: environment and consensus are shared by every actor of a cell.
inline constexpr std::array<std::string_view, kLayerCount> kLayerNames = {
    "environment", "consensus", "about_me", "agent_memory", "session", "working", "unknown"};

inline bool is_shared_layer(int code) {
  return code < kFirstPersonalLayer;
}

std::optional<int> layer_code(std::string_view name);

// A set of layers as a bit mask (bit `code`), the form SQL filters receive.
using LayerMask = uint32_t;
inline constexpr LayerMask kAllLayers = (1u << kLayerCount) - 1;
inline constexpr LayerMask kSharedLayers = (1u << kFirstPersonalLayer) - 1;
inline constexpr LayerMask kPersonalLayers = kAllLayers & ~kSharedLayers;

}  // namespace agentrt::memory_sqlite
