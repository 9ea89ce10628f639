#include "core/runs/history_span.h"

#include <algorithm>
#include <utility>

namespace agentrt::core {

HistorySpan::HistorySpan(std::vector<StoredMessage> messages)
    : messages_(std::make_shared<const std::vector<StoredMessage>>(std::move(messages))),
      last_(messages_->size()) {}

HistorySpan::HistorySpan(std::shared_ptr<const std::vector<StoredMessage>> messages, size_t first,
                         size_t last)
    : messages_(std::move(messages)), first_(first), last_(last) {}

HistorySpan HistorySpan::without_first(size_t n) const {
  HistorySpan rest = *this;
  rest.first_ = std::min(first_ + n, last_);
  return rest;
}

}  // namespace agentrt::core
