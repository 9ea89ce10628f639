#include "core/runs/context_window.h"

#include "core/domain/errors.h"

namespace agentrt::core {

int64_t estimate_tokens(const StoredMessage& message) {
  int64_t tokens = 4;
  for (const auto& part : message.content) {
    if (part.value("type", "") == "text")
      tokens += static_cast<int64_t>((part.value("text", "").size() + 3) / 4);
    else
      tokens += 256;
  }
  return tokens;
}

std::vector<StoredMessage> fit_context(const std::vector<StoredMessage>& history,
                                       const std::vector<StoredMessage>& fresh,
                                       int64_t context_window, std::optional<int64_t> reserved) {
  const int64_t budget = context_window - reserved.value_or(0);
  int64_t needed = 0;
  for (const auto& m : fresh) needed += estimate_tokens(m);
  if (needed > budget)
    throw invalid("field 'messages' needs about " + std::to_string(needed) +
                  " tokens, more than the model's context window of " +
                  std::to_string(context_window) +
                  (reserved ? " less max_tokens " + std::to_string(*reserved) : std::string()));
  // Walk back from the newest history message while it still fits.
  size_t first = history.size();
  int64_t used = needed;
  while (first > 0 && used + estimate_tokens(history[first - 1]) <= budget) {
    used += estimate_tokens(history[first - 1]);
    --first;
  }
  while (first < history.size() && history[first].role == "assistant") ++first;
  std::vector<StoredMessage> out(history.begin() + static_cast<std::ptrdiff_t>(first),
                                 history.end());
  out.insert(out.end(), fresh.begin(), fresh.end());
  return out;
}

}  // namespace agentrt::core
