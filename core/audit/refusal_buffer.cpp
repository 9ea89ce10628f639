#include "core/audit/refusal_buffer.h"

#include <algorithm>

namespace agentrt::core {
namespace {

void append_part(std::string& key, const std::optional<std::string>& part) {
  // A unit separator between the parts; an absent part differs from an empty one.
  key += part ? "\x1f+" + *part : std::string("\x1f-");
}

std::string key_of(const AuditEntry& refusal) {
  std::string key = std::to_string(refusal.status);
  for (const auto* part : {&refusal.peer, &refusal.token_id, &refusal.actor, &refusal.detail,
                           &refusal.target, &refusal.cell})
    append_part(key, *part);
  return key;
}

void count_in(AuditEntry& held, const AuditEntry& refusal) {
  held.count += refusal.count;
  held.last_at_ms = std::max(held.last_at_ms.value_or(held.at_ms), refusal.at_ms);
}

// What a window's refusals past its distinct ones share: their status, and no more.
AuditEntry coalesced(const AuditEntry& refusal) {
  AuditEntry entry;
  entry.kind = AuditKind::refusal;
  entry.at_ms = refusal.at_ms;
  entry.count = refusal.count;
  entry.action = refusal.action;
  entry.status = refusal.status;
  entry.error = refusal.error;
  entry.detail = "coalesced";
  return entry;
}

}  // namespace

bool RefusalBuffer::add(const AuditEntry& refusal) {
  std::string key = key_of(refusal);
  std::lock_guard<std::mutex> lock(mutex_);
  const bool was_empty = held_.empty() && overflow_.empty();
  if (auto held = held_.find(key); held != held_.end()) {
    count_in(held->second, refusal);
  } else if (held_.size() < max_keys_) {
    held_.emplace(std::move(key), refusal);
  } else if (auto other = overflow_.find(refusal.status); other != overflow_.end()) {
    count_in(other->second, refusal);
  } else {
    overflow_.emplace(refusal.status, coalesced(refusal));
  }
  return was_empty;
}

std::vector<AuditEntry> RefusalBuffer::take() {
  std::map<std::string, AuditEntry> held;
  std::map<int, AuditEntry> overflow;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    held.swap(held_);
    overflow.swap(overflow_);
  }
  std::vector<AuditEntry> entries;
  entries.reserve(held.size() + overflow.size());
  for (auto& [key, entry] : held) entries.push_back(std::move(entry));
  for (auto& [status, entry] : overflow) entries.push_back(std::move(entry));
  std::stable_sort(entries.begin(), entries.end(),
                   [](const AuditEntry& a, const AuditEntry& b) { return a.at_ms < b.at_ms; });
  return entries;
}

}  // namespace agentrt::core
