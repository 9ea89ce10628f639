#include "core/store/wal_buffer_vfs.h"

#include "core/log/logger.h"
#include "core/store/sqlite.h"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>

namespace agentrt::core {
namespace {

constexpr const char* kName = "agentrt-walbuf";
// From SQLite's WAL format (wal.c): a frame header's size, where its commit field is,
// and the shm lock slot a writer holds for its whole write transaction.
constexpr int kFrameHeaderSize = 24;
constexpr int kCommitFieldOffset = 4;
constexpr int kWalWriteLock = 0;
// The unix VFS writes at most 128 KB - 1 bytes per call (seekAndWriteFd masks the
// length with 0x1ffff). 120 KB holds a commit of 58 frames of 2 KB pages (29 of 4 KB);
// bigger ones take a write per 120 KB.
constexpr size_t kMaxBuffered = 120 * 1024;
constexpr size_t kInitialCapacity = 48 * 1024;

std::atomic<uint64_t> requested_writes{0};
std::atomic<uint64_t> underlying_writes{0};
std::atomic<uint64_t> subjournal_files{0};

// What SQLite allocates for a file opened through the shim (szOsFile): this, then the
// underlying VFS's file object at kRealOffset.
struct ShimFile {
  sqlite3_file base;  // first: SQLite sees a ShimFile as its sqlite3_file
  sqlite3_file* real;
  ShimFile* peer;  // a database file's open WAL file, and the WAL's database file
  // WAL files only: bytes [start, start + size) not yet written to `real`.
  char* data;
  size_t size;
  size_t capacity;
  sqlite3_int64 start;
  bool commit_pending;  // the last write was the header of a frame with a commit mark
  // Database files only: when has_moved last looked (steady clock, ns), and what it saw.
  int64_t moved_checked_at;
  bool moved;
};
// The underlying file object needs pointer alignment, and SQLite's allocations give no more.
constexpr size_t kRealOffset = (sizeof(ShimFile) + alignof(void*) - 1) & ~(alignof(void*) - 1);

ShimFile* as_shim(sqlite3_file* file) {
  return reinterpret_cast<ShimFile*>(file);
}

int write_through(ShimFile* f, const void* data, int amount, sqlite3_int64 offset) {
  underlying_writes.fetch_add(1, std::memory_order_relaxed);
  return f->real->pMethods->xWrite(f->real, data, amount, offset);
}

// On failure the error goes to the caller, so SQLite never carries on as if frames it
// wrote were in the file: it fails the transaction they belong to. The bytes are dropped
// with it. Kept for the next call on the WAL to try again, they were written once the
// disk had room again, before the transaction let go of the WAL: a complete commit with
// good checksums past the WAL's end, which the recovery after a crash applied, so that
// a transaction its client was told had failed came back (audit 5c, F2).
int flush(ShimFile* f) {
  f->commit_pending = false;
  if (f->size == 0) return SQLITE_OK;
  const int rc = write_through(f, f->data, static_cast<int>(f->size), f->start);
  f->size = 0;
  return rc;
}

bool reserve(ShimFile* f, size_t needed) {
  if (needed <= f->capacity) return true;
  const size_t capacity =
      std::min(kMaxBuffered, std::max({needed, 2 * f->capacity, kInitialCapacity}));
  void* grown = sqlite3_realloc64(f->data, capacity);
  if (grown == nullptr) return false;
  f->data = static_cast<char*>(grown);
  f->capacity = capacity;
  return true;
}

int append(ShimFile* f, const void* data, int amount, sqlite3_int64 offset) {
  const size_t n = static_cast<size_t>(amount);
  const bool continues = offset == f->start + static_cast<sqlite3_int64>(f->size);
  if (f->size > 0 && (!continues || f->size + n > kMaxBuffered)) {
    if (const int rc = flush(f); rc != SQLITE_OK) return rc;
  }
  if (n > kMaxBuffered || !reserve(f, f->size + n)) {
    // Too big to buffer, or no memory to: written as SQLite asked, after what precedes it.
    if (const int rc = flush(f); rc != SQLITE_OK) return rc;
    return write_through(f, data, amount, offset);
  }
  if (f->size == 0) f->start = offset;
  std::memcpy(f->data + f->size, data, n);
  f->size += n;
  return SQLITE_OK;
}

bool has_commit_mark(const void* data, int amount) {
  if (amount != kFrameHeaderSize) return false;
  const auto* field = static_cast<const unsigned char*>(data) + kCommitFieldOffset;
  return (field[0] | field[1] | field[2] | field[3]) != 0;
}

int wal_write(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset) {
  ShimFile* f = as_shim(file);
  requested_writes.fetch_add(1, std::memory_order_relaxed);
  // Unlinked from its database file nothing would flush at the commit's publication.
  if (f->peer == nullptr) return write_through(f, data, amount, offset);
  // SQLite writes a frame as its header, then its page: the page after a header with a
  // commit mark completes the transaction, and a failed write must fail that commit.
  const bool ends_commit = f->commit_pending;
  if (const int rc = append(f, data, amount, offset); rc != SQLITE_OK) return rc;
  if (ends_commit) return flush(f);
  f->commit_pending = has_commit_mark(data, amount);
  return SQLITE_OK;
}

int wal_close(sqlite3_file* file) {
  ShimFile* f = as_shim(file);
  const int rc = flush(f);
  if (f->peer != nullptr) f->peer->peer = nullptr;
  sqlite3_free(f->data);
  const int closed = f->real->pMethods->xClose(f->real);
  return rc != SQLITE_OK ? rc : closed;
}

// Called between the two copies of the wal-index header a commit publishes, with no way
// to fail it: frames readers are about to trust must be in the file by now.
void flush_before_publishing(ShimFile* wal) {
  const int rc = flush(wal);
  if (rc == SQLITE_OK) return;
  log_error("cannot write WAL frames of a commit being published; aborting",
            {{"error", sqlite3_errstr(rc)}});
  std::abort();  // a restart recovers the WAL up to the last complete commit
}

void db_shm_barrier(sqlite3_file* file) {
  ShimFile* f = as_shim(file);
  if (f->peer != nullptr) flush_before_publishing(f->peer);
  f->real->pMethods->xShmBarrier(f->real);
}

// In WAL mode SQLite checks only in rollback-journal mode that the file it writes is
// still the one at its path (SQLITE_READONLY_DBMOVED), so with the data dir removed
// every commit went to unlinked files and was lost at the next start, acknowledged
// (audit 5c, F8). A write transaction starts by taking the WAL write lock: refused here
// when the file has moved. The look is a stat of the path, 1.2 µs on the benchmark
// machine, and a /chat's CPU grew by 3-7 µs with one per write transaction: it is
// taken at most every 50 ms, so that writes are refused from 50 ms after a removal.
constexpr int64_t kMovedCheckNs = 50'000'000;

bool has_moved(ShimFile* f) {
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  if (f->moved || now - f->moved_checked_at < kMovedCheckNs) return f->moved;
  f->moved_checked_at = now;
  int moved = 0;
  f->moved =
      f->real->pMethods->xFileControl(f->real, SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK &&
      moved != 0;
  return f->moved;
}

int db_shm_lock(sqlite3_file* file, int offset, int n, int flags) {
  ShimFile* f = as_shim(file);
  const bool covers_write_lock = offset <= kWalWriteLock && kWalWriteLock < offset + n;
  const bool takes_write_lock = flags == (SQLITE_SHM_LOCK | SQLITE_SHM_EXCLUSIVE);
  if (covers_write_lock && takes_write_lock && has_moved(f)) return SQLITE_READONLY_DBMOVED;
  const bool releases_write_lock = (flags & SQLITE_SHM_UNLOCK) != 0 && covers_write_lock;
  // Every commit was flushed when it was published, so what is left belongs to a
  // transaction that did not commit. Another writer may reuse those offsets once the
  // lock is free: written now, or dropped if that fails (flush drops), never later.
  if (releases_write_lock && f->peer != nullptr) flush(f->peer);
  return f->real->pMethods->xShmLock(f->real, offset, n, flags);
}

int db_close(sqlite3_file* file) {
  ShimFile* f = as_shim(file);
  // SQLite closes the WAL first; should it not, the WAL writes through from now on.
  int rc = SQLITE_OK;
  if (f->peer != nullptr) {
    rc = flush(f->peer);
    f->peer->peer = nullptr;
  }
  const int closed = f->real->pMethods->xClose(f->real);
  return rc != SQLITE_OK ? rc : closed;
}

// Forwarders generated from the member they forward: the database file's methods go
// straight to the underlying file; the WAL file's write out the buffer first, so that
// nothing reads, sizes, syncs, truncates or locks the file without the frames in it.
template <typename Member>
struct Forward;
template <typename R, typename... A>
struct Forward<R (*sqlite3_io_methods::*)(sqlite3_file*, A...)> {
  using Member = R (*sqlite3_io_methods::*)(sqlite3_file*, A...);
  template <Member M>
  static R to_real(sqlite3_file* file, A... args) {
    sqlite3_file* real = as_shim(file)->real;
    return (real->pMethods->*M)(real, args...);
  }
  template <Member M>
  static R after_flush(sqlite3_file* file, A... args) {
    if constexpr (std::is_same_v<R, int>) {
      if (const int rc = flush(as_shim(file)); rc != SQLITE_OK) return rc;
    } else {
      flush_before_publishing(as_shim(file));
    }
    return to_real<M>(file, args...);
  }
};

template <auto M>
void forward(sqlite3_io_methods& methods, bool wal) {
  using F = Forward<decltype(M)>;
  methods.*M = wal ? &F::template after_flush<M> : &F::template to_real<M>;
}

sqlite3_io_methods make_methods(int version, bool wal) {
  sqlite3_io_methods m{};
  m.iVersion = version;
  m.xClose = wal ? wal_close : db_close;
  m.xWrite =
      wal ? wal_write
          : &Forward<decltype(&sqlite3_io_methods::xWrite)>::to_real<&sqlite3_io_methods::xWrite>;
  forward<&sqlite3_io_methods::xRead>(m, wal);
  forward<&sqlite3_io_methods::xTruncate>(m, wal);
  forward<&sqlite3_io_methods::xSync>(m, wal);
  forward<&sqlite3_io_methods::xFileSize>(m, wal);
  forward<&sqlite3_io_methods::xLock>(m, wal);
  forward<&sqlite3_io_methods::xUnlock>(m, wal);
  forward<&sqlite3_io_methods::xCheckReservedLock>(m, wal);
  forward<&sqlite3_io_methods::xFileControl>(m, wal);
  // Properties of the device, not of what is in the file: nothing to write first.
  forward<&sqlite3_io_methods::xSectorSize>(m, false);
  forward<&sqlite3_io_methods::xDeviceCharacteristics>(m, false);
  if (version >= 2) {
    forward<&sqlite3_io_methods::xShmMap>(m, wal);
    forward<&sqlite3_io_methods::xShmLock>(m, wal);
    forward<&sqlite3_io_methods::xShmBarrier>(m, wal);
    forward<&sqlite3_io_methods::xShmUnmap>(m, wal);
    if (!wal) m.xShmLock = db_shm_lock;
    if (!wal) m.xShmBarrier = db_shm_barrier;
  }
  if (version >= 3) {
    forward<&sqlite3_io_methods::xFetch>(m, wal);
    forward<&sqlite3_io_methods::xUnfetch>(m, wal);
  }
  return m;
}

// By the underlying file's iVersion (1 to 3): SQLite decides from iVersion whether the
// shm and mmap methods exist, so a wrapper must not claim more than the file has.
using MethodTables = std::array<sqlite3_io_methods, 3>;
const MethodTables db_methods = {make_methods(1, false), make_methods(2, false),
                                 make_methods(3, false)};
const MethodTables wal_methods = {make_methods(1, true), make_methods(2, true),
                                  make_methods(3, true)};

// Sub-journals (a savepoint's or statement's page copies) stay in memory up to
// Connection::kStatementJournalInMemory. One that outgrows it is copied to a temporary
// file in chunks of that size, but the unix VFS masks a write's length with 0x1ffff
// (seekAndWriteFd), so a 16 MiB chunk would write nothing and fail with SQLITE_FULL.
// Here a write goes down in pieces the unix VFS takes whole.
constexpr int kJournalPiece = 64 * 1024;

int journal_write(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset) {
  sqlite3_file* real = as_shim(file)->real;
  const char* bytes = static_cast<const char*>(data);
  while (amount > 0) {
    const int piece = std::min(amount, kJournalPiece);
    if (const int rc = real->pMethods->xWrite(real, bytes, piece, offset); rc != SQLITE_OK)
      return rc;
    bytes += piece;
    offset += piece;
    amount -= piece;
  }
  return SQLITE_OK;
}

sqlite3_io_methods make_journal_methods(int version) {
  sqlite3_io_methods m = make_methods(version, false);
  m.xWrite = journal_write;
  return m;
}

const MethodTables journal_methods = {make_journal_methods(1), make_journal_methods(2),
                                      make_journal_methods(3)};

bool is_shim_database(const sqlite3_file* file) {
  return std::any_of(db_methods.begin(), db_methods.end(),
                     [&](const sqlite3_io_methods& m) { return file->pMethods == &m; });
}

sqlite3_vfs* real_vfs(sqlite3_vfs* vfs) {
  return static_cast<sqlite3_vfs*>(vfs->pAppData);
}

int shim_open(sqlite3_vfs* vfs, sqlite3_filename name, sqlite3_file* file, int flags,
              int* out_flags) {
  sqlite3_vfs* real = real_vfs(vfs);
  const bool wal = (flags & SQLITE_OPEN_WAL) != 0;
  const bool subjournal = (flags & SQLITE_OPEN_SUBJOURNAL) != 0;
  // Other journals and temporary files: the underlying VFS's own object, at no cost.
  if (!wal && !subjournal && (flags & SQLITE_OPEN_MAIN_DB) == 0)
    return real->xOpen(real, name, file, flags, out_flags);
  if (subjournal) subjournal_files.fetch_add(1, std::memory_order_relaxed);
  ShimFile* f = new (file) ShimFile{};
  f->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(file) + kRealOffset);
  const int rc = real->xOpen(real, name, f->real, flags, out_flags);
  if (rc != SQLITE_OK) {
    // SQLite closes only what it sees opened (our pMethods stays null).
    if (f->real->pMethods != nullptr) f->real->pMethods->xClose(f->real);
    return rc;
  }
  const int version = std::clamp(f->real->pMethods->iVersion, 1, 3);
  const MethodTables& methods = wal ? wal_methods : subjournal ? journal_methods : db_methods;
  f->base.pMethods = &methods[static_cast<size_t>(version - 1)];
  if (wal) {
    sqlite3_file* db = sqlite3_database_file_object(name);
    if (db != nullptr && is_shim_database(db)) {
      f->peer = as_shim(db);
      f->peer->peer = f;
    }
  }
  return SQLITE_OK;
}

// The VFS's other methods go to the underlying VFS, with its own object: the unix VFS
// keeps state there (pAppData) that a copy would not point at.
template <typename Member>
struct VfsForward;
template <typename R, typename... A>
struct VfsForward<R (*sqlite3_vfs::*)(sqlite3_vfs*, A...)> {
  template <R (*sqlite3_vfs::*M)(sqlite3_vfs*, A...)>
  static R call(sqlite3_vfs* vfs, A... args) {
    sqlite3_vfs* real = real_vfs(vfs);
    return (real->*M)(real, args...);
  }
};

template <auto... Ms>
void forward_vfs(sqlite3_vfs& vfs) {
  ((vfs.*Ms = vfs.*Ms == nullptr ? nullptr : &VfsForward<decltype(Ms)>::template call<Ms>), ...);
}

sqlite3_vfs make_vfs(sqlite3_vfs* real) {
  sqlite3_vfs vfs{};
  // Only the members of the underlying VFS's version exist in its object.
  const size_t known = real->iVersion >= 3   ? sizeof(sqlite3_vfs)
                       : real->iVersion == 2 ? offsetof(sqlite3_vfs, xSetSystemCall)
                                             : offsetof(sqlite3_vfs, xCurrentTimeInt64);
  std::memcpy(&vfs, real, known);
  vfs.iVersion = std::min(real->iVersion, 3);
  vfs.szOsFile = static_cast<int>(kRealOffset) + real->szOsFile;
  vfs.pNext = nullptr;
  vfs.zName = kName;
  vfs.pAppData = real;
  vfs.xOpen = shim_open;
  forward_vfs<&sqlite3_vfs::xDelete, &sqlite3_vfs::xAccess, &sqlite3_vfs::xFullPathname,
              &sqlite3_vfs::xDlOpen, &sqlite3_vfs::xDlError, &sqlite3_vfs::xDlSym,
              &sqlite3_vfs::xDlClose, &sqlite3_vfs::xRandomness, &sqlite3_vfs::xSleep,
              &sqlite3_vfs::xCurrentTime, &sqlite3_vfs::xGetLastError>(vfs);
  if (vfs.iVersion >= 2) forward_vfs<&sqlite3_vfs::xCurrentTimeInt64>(vfs);
  if (vfs.iVersion >= 3) {
    forward_vfs<&sqlite3_vfs::xSetSystemCall, &sqlite3_vfs::xGetSystemCall,
                &sqlite3_vfs::xNextSystemCall>(vfs);
  }
  return vfs;
}

}  // namespace

const char* wal_buffer_vfs() {
  static const char* const name = [] {
    sqlite3_vfs* real = sqlite3_vfs_find(nullptr);
    if (real == nullptr) throw StoreError("sqlite: no default VFS to wrap");
    static sqlite3_vfs vfs = make_vfs(real);
    const int rc = sqlite3_vfs_register(&vfs, /*makeDflt=*/0);
    if (rc != SQLITE_OK) {
      throw StoreError(std::string("sqlite: cannot register VFS ") + kName + ": " +
                       sqlite3_errstr(rc));
    }
    return kName;
  }();
  return name;
}

WalWriteCounts wal_write_counts() {
  return {requested_writes.load(std::memory_order_relaxed),
          underlying_writes.load(std::memory_order_relaxed)};
}

uint64_t subjournal_files_opened() {
  return subjournal_files.load(std::memory_order_relaxed);
}

}  // namespace agentrt::core
