#include "core/domain/real_path.h"

#include <cstdlib>
#include <memory>

namespace agentrt::core {

std::optional<std::string> real_path(const std::string& path) {
  std::unique_ptr<char, decltype(&std::free)> resolved(::realpath(path.c_str(), nullptr),
                                                       &std::free);
  if (!resolved) return std::nullopt;
  return std::string(resolved.get());
}

}  // namespace agentrt::core
