#include "layers.h"

namespace agentrt::memory_sqlite {

std::optional<int> layer_code(std::string_view name) {
  for (int code = 0; code < kLayerCount; ++code)
    if (kLayerNames[static_cast<size_t>(code)] == name) return code;
  return std::nullopt;
}

}  // namespace agentrt::memory_sqlite
