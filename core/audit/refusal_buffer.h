// Refused authentications held in memory for a window and coalesced before they reach
// the store: a flood of unauthenticated requests costs a lookup under a mutex each, and
// at most max_keys + 2 rows a window, however many requests and peers it has.
#pragma once

#include "core/audit/audit_entry.h"

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace agentrt::core {

class RefusalBuffer {
 public:
  explicit RefusalBuffer(size_t max_keys) : max_keys_(max_keys) {}

  // Counts `refusal` into the entry alike to it (same peer, token id, actor, reason,
  // target, cell and status), or a new one while fewer than max_keys are held, or else
  // into the window's "coalesced" entry of its status. True when nothing was held
  // before: the window starts.
  bool add(const AuditEntry& refusal);

  // What the window held, oldest first, and a new window.
  std::vector<AuditEntry> take();

 private:
  size_t max_keys_;
  std::mutex mutex_;
  std::map<std::string, AuditEntry> held_;  // by what makes two refusals alike
  std::map<int, AuditEntry> overflow_;      // by status, once held_ is full
};

}  // namespace agentrt::core
