// A stretch of a session's messages, oldest first, shared instead of copied. The history
// cache hands each run its window so: with a long session's 1,600 messages, copying the
// window into the run, moving it into the context and freeing it takes 100-140 us of a
// /chat's CPU (bench/README.md).
#pragma once

#include "core/sessions/session_store.h"

#include <cstddef>
#include <memory>
#include <vector>

namespace agentrt::core {

class HistorySpan {
 public:
  HistorySpan() = default;
  // All of `messages`, owned. Implicit, as the vector it replaced: a history read from
  // the store converts.
  HistorySpan(std::vector<StoredMessage> messages);
  // [first, last) of `messages`, which the span keeps alive and must not change.
  HistorySpan(std::shared_ptr<const std::vector<StoredMessage>> messages, size_t first,
              size_t last);

  const StoredMessage* begin() const { return messages_ ? messages_->data() + first_ : nullptr; }
  const StoredMessage* end() const { return begin() + size(); }
  size_t size() const { return last_ - first_; }
  bool empty() const { return size() == 0; }
  const StoredMessage& operator[](size_t i) const { return begin()[i]; }
  // The span without its first `n`.
  HistorySpan without_first(size_t n) const;

 private:
  std::shared_ptr<const std::vector<StoredMessage>> messages_;
  size_t first_ = 0, last_ = 0;
};

}  // namespace agentrt::core
