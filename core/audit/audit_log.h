// The audit log: admin actions and refused authentications, appended to the state store
// and never changed; read by GET /admin/audit (docs/operator-guide.md, "Audit log").
// An admin action's entry goes into the transaction of the action's own write
// (StateStore::Companion), so the two commit together or not at all; an action that
// writes elsewhere (tokens live in the auth module's store) or fails is recorded right
// after, with its result. Refusals are coalesced in memory (refusal_buffer.h) and
// written by a thread of their own once a window has passed.
#pragma once

#include "core/audit/audit_config.h"
#include "core/audit/audit_entry.h"
#include "core/audit/audit_query.h"
#include "core/audit/refusal_buffer.h"
#include "core/store/state_store.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace agentrt::core {

class AuditLog {
 public:
  // Prunes what the retention rules no longer keep, then starts the refusals' writer.
  AuditLog(StateStore& store, AuditConfig config);
  // Writes the refusals still held.
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  // Adds an action's entry inside the caller's write transaction.
  void append(Connection& db, const AuditEntry& entry);
  // Writes an action's entry in a transaction of its own. A store that refuses it is
  // logged: the action it records has happened already.
  void record(const AuditEntry& entry);
  // Holds a refused authentication, written within the refusal window.
  void refused(const AuditEntry& refusal);
  // Writes the refusals held now, so that a read sees every refusal made before it.
  void flush();

  nlohmann::json list(const AuditQuery& query);

 private:
  void write_refusals();
  void prune_old(Connection& db);

  StateStore& store_;
  AuditConfig config_;
  RefusalBuffer refusals_;
  // When entries were last pruned by age; they are at most once a minute, as a retention
  // counts in days.
  std::atomic<int64_t> aged_at_ms_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool held_ = false;  // refusals wait in the buffer (under mutex_)
  bool stopping_ = false;
  std::thread writer_;
};

}  // namespace agentrt::core
