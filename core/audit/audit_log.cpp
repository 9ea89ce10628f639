#include "core/audit/audit_log.h"

#include "core/audit/audit_table.h"
#include "core/log/logger.h"

namespace agentrt::core {
namespace {

constexpr int64_t kMillisPerDay = 86400000;
constexpr int64_t kAgeCheckEveryMs = 60000;

}  // namespace

AuditLog::AuditLog(StateStore& store, AuditConfig config)
    : store_(store), config_(config), refusals_(config.max_refusal_keys) {
  store_.write([this](Connection& db) { prune_old(db); });
  writer_ = std::thread([this] { write_refusals(); });
}

AuditLog::~AuditLog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  writer_.join();
  flush();
}

void AuditLog::prune_old(Connection& db) {
  if (config_.retention_days == 0) return;
  const int64_t now = unix_ms_now();
  const int64_t last = aged_at_ms_.load(std::memory_order_relaxed);
  if (last != 0 && now - last < kAgeCheckEveryMs) return;
  aged_at_ms_.store(now, std::memory_order_relaxed);
  const int64_t pruned = prune_audit_before(db, now - config_.retention_days * kMillisPerDay);
  if (pruned > 0) log_info("audit entries past their retention deleted", {{"entries", pruned}});
}

void AuditLog::append(Connection& db, const AuditEntry& entry) {
  insert_audit_entries(db, {entry}, config_.max_entries);
  prune_old(db);
}

void AuditLog::record(const AuditEntry& entry) {
  try {
    store_.write([&](Connection& db) { append(db, entry); });
  } catch (const std::exception& e) {
    log_error("an audit entry could not be stored",
              {{"action", entry.action}, {"status", entry.status}, {"error", e.what()}});
  }
}

void AuditLog::refused(const AuditEntry& refusal) {
  if (!refusals_.add(refusal)) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    held_ = true;
  }
  wake_.notify_all();
}

void AuditLog::flush() {
  std::vector<AuditEntry> entries = refusals_.take();
  if (entries.empty()) return;
  try {
    store_.write([&](Connection& db) {
      insert_audit_entries(db, entries, config_.max_refusals);
      prune_old(db);
    });
  } catch (const std::exception& e) {
    int64_t lost = 0;
    for (const AuditEntry& entry : entries) lost += entry.count;
    log_error("refused authentications could not be stored in the audit log",
              {{"refusals", lost}, {"error", e.what()}});
  }
}

// Sleeps until a refusal is held, then for the window, so that the refusals alike in
// it become one entry; a refusal-free server wakes for nothing.
void AuditLog::write_refusals() {
  const auto window = std::chrono::milliseconds(config_.refusal_window_ms);
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || held_; });
    if (stopping_) return;
    wake_.wait_for(lock, window, [this] { return stopping_; });
    held_ = false;
    lock.unlock();
    flush();
    lock.lock();
  }
}

nlohmann::json AuditLog::list(const AuditQuery& query) {
  flush();
  nlohmann::json page;
  store_.read([&](Connection& db) { page = read_audit_page(db, query); });
  return page;
}

}  // namespace agentrt::core
