#include "core/store/state_store.h"
#include "core/log/logger.h"
#include "core/store/data_dir.h"
#include "core/store/store_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace agentrt::core {
namespace {

// A data dir whose state.db is gone (or empty) while another store of an earlier start
// (auth.db, memory.db: any *.db) holds data. Opening it would make a new, empty state:
// a first start, with a new admin token over admin.token, beside tokens and memory
// that name cells and sessions it no longer has. Refused instead.
void refuse_lost_state(const std::string& data_dir, const std::string& path) {
  if (store_holds_data(path)) return;
  const std::vector<std::string> others = stores_beside_state(data_dir);
  if (others.empty()) return;
  throw StoreError("'" + path + "' is missing or empty, but '" +
                   data_dir_file(data_dir, others.front().c_str()) +
                   "' holds data of an earlier start: restore state.db from a backup, or "
                   "move the data dir's files away to start afresh");
}

// After a failed statement SQLite may already have rolled back on its own; a second
// ROLLBACK would fail and hide the first error. False when the state is unknown.
bool rollback(Connection& db) {
  if (sqlite3_get_autocommit(db.handle())) return true;
  return sqlite3_exec(db.handle(), "ROLLBACK", nullptr, nullptr, nullptr) == SQLITE_OK;
}

void in_snapshot(Connection& db, const std::function<void(Connection&)>& work) {
  db.prepare("BEGIN").run();
  work(db);
  db.prepare("COMMIT").run();
}

// `work` in a snapshot on the writer connection, held by the caller. It must only read,
// as on a read connection: a write is refused before it can commit.
void read_on_writer(Connection& db, const std::function<void(Connection&)>& work) {
  try {
    in_snapshot(db, [&](Connection& snapshot) {
      work(snapshot);
      if (sqlite3_txn_state(db.handle(), "main") == SQLITE_TXN_WRITE)
        throw StoreError("a read of the state store tried to write");
    });
  } catch (...) {
    rollback(db);
    throw;
  }
}

// SQLite gives the -wal and -shm files the main file's mode, so a main file made 0600
// before SQLite opens it keeps all three private whatever the umask: it holds every
// conversation. An existing file is narrowed too.
void make_private_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) throw StoreError("cannot open '" + path + "': " + std::strerror(errno));
  const int rc = ::fchmod(fd, 0600);
  const int saved = errno;
  ::close(fd);
  if (rc != 0) throw StoreError("cannot chmod '" + path + "': " + std::strerror(saved));
}

int max_version(Connection& db) {
  Statement query = db.prepare("SELECT coalesce(max(version), 0) FROM schema_migrations");
  query.step();
  return static_cast<int>(query.column_int(0));
}

void check_migration_list(const std::vector<Migration>& migrations) {
  int previous = 0;
  for (const Migration& m : migrations) {
    if (m.version <= previous) {
      throw StoreError("schema migrations out of order at version " + std::to_string(m.version));
    }
    previous = m.version;
  }
}

bool is_applied(Connection& db, int version) {
  Statement query = db.prepare("SELECT 1 FROM schema_migrations WHERE version = ?");
  query.bind(1, static_cast<int64_t>(version));
  return query.step();
}

void apply_migration(Connection& db, const Migration& m) {
  // Said before as well as after: a step can take seconds on a large store, and a
  // restart that went quiet meanwhile looked hung.
  log_info("applying schema migration", {{"version", m.version}, {"name", m.name}});
  const auto began = std::chrono::steady_clock::now();
  db.exec("BEGIN IMMEDIATE");
  try {
    // Another agentd on the same data dir may have applied it since we looked; the
    // IMMEDIATE lock makes this check and the step one atomic unit.
    if (!is_applied(db, m.version)) {
      db.exec(m.sql);
      db.prepare(
            "INSERT INTO schema_migrations(version, name, applied_at) "
            "VALUES(?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))")
          .bind(1, static_cast<int64_t>(m.version))
          .bind(2, std::string_view(m.name))
          .run();
    }
    db.exec("COMMIT");
  } catch (const std::exception& e) {
    rollback(db);
    throw StoreError("schema migration " + std::to_string(m.version) + " (" + m.name +
                     ") failed: " + e.what());
  }
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - began);
  log_info("applied schema migration",
           {{"version", m.version}, {"name", m.name}, {"duration_ms", took.count()}});
}

void migrate(Connection& db, const std::vector<Migration>& migrations, const std::string& path,
             StateStore::Upgrades upgrades) {
  check_migration_list(migrations);
  db.exec(
      "CREATE TABLE IF NOT EXISTS schema_migrations("
      "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)");
  const int newest = migrations.empty() ? 0 : migrations.back().version;
  const int current = max_version(db);
  // Running old code on a newer schema could write rows the newer code misreads.
  if (current > newest) {
    throw StoreError("database schema version " + std::to_string(current) +
                     " is newer than this agentd (" + std::to_string(newest) + "): " + path);
  }
  if (current < newest && upgrades == StateStore::Upgrades::refuse) {
    throw StoreError("database schema version " + std::to_string(current) +
                     " is older than this agentd's (" + std::to_string(newest) + "): " + path +
                     "; only `agentd serve` of this version upgrades it (an older agentd may "
                     "be serving it: use that build's own `agentd admin-token`)");
  }
  for (const Migration& m : migrations) {
    if (m.version > current) apply_migration(db, m);
  }
}

void require_wal(Connection& db, const std::string& path) {
  Statement query = db.prepare("PRAGMA journal_mode");
  std::string mode = query.step() ? query.column_text(0) : std::string();
  // Without WAL readers block behind the writer, which the whole design relies on not
  // happening (e.g. a filesystem without shared memory support).
  if (mode != "wal") {
    throw StoreError("cannot use WAL journal mode on '" + path + "' (got '" + mode + "')");
  }
}

}  // namespace

class StateStore::ReadPool {
 public:
  explicit ReadPool(std::string path) : path_(std::move(path)) {}

  std::unique_ptr<Connection> acquire() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!idle_.empty()) {
        std::unique_ptr<Connection> connection = std::move(idle_.back());
        idle_.pop_back();
        return connection;
      }
    }
    // Opened outside the lock: opening touches the disk and other readers need not wait.
    return std::make_unique<Connection>(path_, /*read_only=*/true);
  }

  void release(std::unique_ptr<Connection> connection) {
    std::lock_guard<std::mutex> lock(mutex_);
    idle_.push_back(std::move(connection));
  }

 private:
  std::string path_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Connection>> idle_;
};

std::optional<std::string> StateStore::open_problem(const std::string& data_dir) {
  const std::string path = data_dir_file(data_dir, "state.db");
  if (!store_holds_data(path)) return std::nullopt;
  try {
    Connection db(path, /*read_only=*/true);
    const int stored = max_version(db);
    const int newest = schema_migrations().back().version;
    if (stored <= newest) return std::nullopt;
    return "database schema version " + std::to_string(stored) + " is newer than this agentd (" +
           std::to_string(newest) + "): " + path;
  } catch (const StoreError& e) {
    return std::string("cannot read ") + path + ": " + e.what();
  }
}

StateStore::StateStore(const std::string& data_dir, const std::vector<Migration>& migrations,
                       Upgrades upgrades) {
  create_private_dirs(data_dir);
  path_ = data_dir_file(data_dir, "state.db");
  refuse_lost_state(data_dir, path_);
  make_private_file(path_);
  writer_ = std::make_unique<Connection>(path_);
  require_wal(*writer_, path_);
  migrate(*writer_, migrations, path_, upgrades);
  // Recorded so healthy() notices the file being deleted or swapped underneath us,
  // which open connections would otherwise hide by reading the old, unlinked inode.
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) {
    throw StoreError("cannot stat '" + path_ + "': " + std::strerror(errno));
  }
  inode_ = static_cast<uint64_t>(st.st_ino);
  device_ = static_cast<uint64_t>(st.st_dev);
  readers_ = std::make_unique<ReadPool>(path_);
  batcher_ = std::make_unique<WriteBatcher>(*writer_);
  checkpointer_ = std::make_unique<WalCheckpointer>(path_, *writer_, *batcher_);
}

StateStore::~StateStore() {
  checkpointer_.reset();
  // Readers first: the last connection to close checkpoints the WAL into the database
  // and removes it, and only the writer is allowed to.
  readers_.reset();
  writer_.reset();
}

void StateStore::note(const StoreError& error) const {
  if (!error.storage_fault()) return;
  write_faults_.trip();
  if (error.damage()) damaged_.store(true, std::memory_order_release);
}

namespace {
thread_local StateStore::Companion* current_companion = nullptr;
}  // namespace

StateStore::Companion::Companion(std::function<void(Connection&)> work)
    : work_(std::move(work)), outer_(current_companion) {
  current_companion = this;
}

StateStore::Companion::~Companion() {
  current_companion = outer_;
}

void StateStore::write(const std::function<void(Connection&)>& work) {
  Companion* companion = current_companion;
  if (companion != nullptr && companion->committed_) companion = nullptr;
  try {
    if (companion == nullptr)
      batcher_->write(work);
    else
      batcher_->write([&](Connection& db) {
        work(db);
        companion->work_(db);
      });
  } catch (const StoreError& e) {
    note(e);
    throw;
  }
  if (companion != nullptr) companion->committed_ = true;
}

void StateStore::read(const std::function<void(Connection&)>& work) const {
  std::unique_ptr<Connection> connection = readers_->acquire();
  // One transaction around `work` so all its statements see the same snapshot.
  try {
    in_snapshot(*connection, work);
  } catch (const StoreError& e) {
    note(e);
    // A connection left mid-transaction would pin an old snapshot forever; drop it.
    if (rollback(*connection)) readers_->release(std::move(connection));
    throw;
  } catch (...) {
    if (rollback(*connection)) readers_->release(std::move(connection));
    throw;
  }
  readers_->release(std::move(connection));
}

// A read connection starts each transaction after another connection's commit with an
// empty page cache (SQLite's WAL mode drops it), so a lookup of a row the last commit
// wrote read every page on its way from the WAL again: 30-40 thousand instructions, a
// tenth of a continued session's /chat. The writer's cache holds those pages.
void StateStore::read_short(const std::function<void(Connection&)>& work) const {
  if (!batcher_->when_idle([&](Connection& db) { read_on_writer(db, work); })) read(work);
}

int StateStore::schema_version() const {
  int version = 0;
  read([&](Connection& db) { version = max_version(db); });
  return version;
}

// One small row rewritten: a write goes through the WAL like any other, so it fails on
// a full disk as they do.
bool StateStore::probe_write() {
  try {
    write([](Connection& db) {
      db.exec(
          "INSERT INTO meta(key, value) VALUES('health_probe_at', "
          "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) "
          "ON CONFLICT(key) DO UPDATE SET value = excluded.value");
    });
    return true;
  } catch (const std::exception& e) {
    log_error("state store still refuses writes", {{"error", e.what()}});
    return false;
  }
}

bool StateStore::healthy() {
  try {
    if (damaged_.load(std::memory_order_acquire)) return false;
    struct stat st {};
    if (::stat(path_.c_str(), &st) != 0) return false;
    if (static_cast<uint64_t>(st.st_ino) != inode_ || static_cast<uint64_t>(st.st_dev) != device_) {
      return false;
    }
    bool answered = false;
    read([&](Connection& db) {
      Statement query = db.prepare("SELECT count(*) FROM schema_migrations");
      answered = query.step();
    });
    return answered && write_faults_.usable([this] { return probe_write(); });
  } catch (...) {
    return false;
  }
}

}  // namespace agentrt::core
