// The engine's own state (tokens, cells, providers, sessions, runs, agents) in one
// SQLite database in WAL mode. Writes go through one writer connection, concurrent
// writers group-committed (write_batcher.h) and WAL checkpoints done in the background
// (wal_checkpointer.h); reads use their own connections so they never wait on a writer
// (a short read may borrow the writer's while it is idle, see read_short). The schema is
// versioned in the database itself and migrated forward at open.
#pragma once

#include "core/domain/fault_latch.h"
#include "core/store/sqlite.h"
#include "core/store/wal_checkpointer.h"
#include "core/store/write_batcher.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace agentrt::core {

struct Migration {
  int version;
  const char* name;
  const char* sql;
};

// Every migration the engine knows, in version order. Later issues append.
const std::vector<Migration>& schema_migrations();

class StateStore {
 public:
  // Whether opening may upgrade the schema: only the serving engine does. A guest
  // beside an older agentd (agentd admin-token of a newer build) once upgraded its
  // stores under it, stalling its writes and locking it out after a restart.
  enum class Upgrades { apply, refuse };

  // Opens <data_dir>/state.db, creating the directory (0700) and the database as
  // needed, and applies pending migrations, each in its own transaction. Throws
  // StoreError, also when the database is newer than this engine, or older with
  // Upgrades::refuse.
  explicit StateStore(const std::string& data_dir,
                      const std::vector<Migration>& migrations = schema_migrations(),
                      Upgrades upgrades = Upgrades::apply);
  ~StateStore();

  // Why serve could not open <data_dir>/state.db as this build, without opening it for
  // writing (check-config): a schema newer than this build's. Nothing when the store is
  // usable or absent.
  static std::optional<std::string> open_problem(const std::string& data_dir);

  // Runs `work` in a write transaction (possibly shared with concurrent writers, see
  // write_batcher.h); returns once it is committed, or rolls `work`'s changes back
  // and rethrows when it throws. Not reentrant.
  void write(const std::function<void(Connection&)>& work);
  // Work that this thread's next write() does too, last in its transaction, for as long
  // as the object lives: what must commit with that write or not at all (an admin
  // action's audit entry, core/audit/audit_log.h). The first write that commits takes
  // it; one that fails leaves it for the next.
  class Companion {
   public:
    explicit Companion(std::function<void(Connection&)> work);
    ~Companion();
    Companion(const Companion&) = delete;
    Companion& operator=(const Companion&) = delete;
    // Whether a write committed it.
    bool committed() const { return committed_; }

   private:
    friend class StateStore;
    std::function<void(Connection&)> work_;
    Companion* outer_;
    bool committed_ = false;
  };

  // Announces a writer that will write() soon, for as long as the result lives
  // (WriteBatcher::Coming): group commit waits for such writers only.
  WriteBatcher::Coming writer_coming() { return WriteBatcher::Coming(*batcher_); }

  // Runs `work` on a read connection (a consistent snapshot for its duration).
  void read(const std::function<void(Connection&)>& work) const;

  // The same for a read of a few rows, likely ones the last commits wrote: on the writer
  // connection when no write is under way or queued, as its page cache still holds them
  // (a read connection's is emptied by every commit); writers that come meanwhile wait
  // for it. On a read connection otherwise. `work` only reads: a write through its
  // connection is refused (StoreError) and rolled back, and it must not call write().
  void read_short(const std::function<void(Connection&)>& work) const;

  int schema_version() const;
  const std::string& path() const { return path_; }

  // True when the database file is still the one opened, answers a query, has shown
  // no damage, and takes writes: after a write failed for a fault of the storage (a
  // full disk, an I/O error), until a probe write succeeds (FaultLatch). Cheap enough
  // for every /health call.
  bool healthy();

  // Diagnostics for tests: writers queued behind the current batch, background WAL
  // checkpoints done, and background write-outs of the WAL started.
  size_t pending_writes() const { return batcher_->pending(); }
  uint64_t checkpoints() const { return checkpointer_->completed(); }
  uint64_t wal_writebacks() const { return checkpointer_->writebacks(); }

 private:
  class ReadPool;
  std::string path_;
  std::unique_ptr<Connection> writer_;
  std::unique_ptr<WriteBatcher> batcher_;
  std::unique_ptr<WalCheckpointer> checkpointer_;
  std::unique_ptr<ReadPool> readers_;
  void note(const StoreError& error) const;
  bool probe_write();

  uint64_t inode_ = 0;
  uint64_t device_ = 0;
  mutable FaultLatch write_faults_;  // tripped by reads, too
  mutable std::atomic<bool> damaged_{false};
};

}  // namespace agentrt::core
