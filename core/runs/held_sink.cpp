#include "core/runs/held_sink.h"

namespace agentrt::core {

bool HeldSink::send(const std::string& event) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (gone_) return false;
  if (!open_) {
    held_.push_back(event);
    return true;
  }
  return receiver_.send(event);
}

bool HeldSink::idle() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (gone_) return false;
  return open_ ? receiver_.idle() : true;
}

void HeldSink::open() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (open_) return;
  open_ = true;
  for (const std::string& event : held_) {
    if (!receiver_.send(event)) {
      gone_ = true;
      break;
    }
  }
  held_.clear();
}

bool HeldSink::is_open() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return open_;
}

}  // namespace agentrt::core
