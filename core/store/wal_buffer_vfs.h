// A SQLite VFS shim, "agentrt-walbuf", over the default (unix) VFS that turns a
// connection's WAL appends into one write per commit. SQLite writes each WAL frame as
// two pwrite calls (24-byte header, then the page at an offset that straddles a page
// boundary), about 18 small buffered writes per /chat commit, each paying the
// filesystem's whole buffered-write path.
//
// A WAL file opened through the shim keeps writes that continue where the buffered
// bytes end in memory, and writes them with one call to the underlying file when:
//  - the frame that carries a commit mark is complete (its page follows a header whose
//    "database size" field is non-zero), so a failed write fails the commit itself;
//  - the next write does not continue the run, or the buffer would pass 120 KB;
//  - another method of the WAL file is called (read, sync, truncate, size, locks, file
//    controls; not sector size or device characteristics, which do not look at data);
//  - the database file's xShmBarrier runs. SQLite publishes a commit to readers in
//    walIndexWriteHdr: second copy of the wal-index header, xShmBarrier on the database
//    file, first copy; readers trust the header only when both copies match. Whatever
//    is still buffered (the frame headers walRewriteChecksums rewrites after a cache
//    spill) is thus in the file before any reader can see the commit;
//  - the database file's shm write lock is released: another writer may then reuse
//    those WAL offsets (buffered frames then belong to a transaction that did not commit).
// A failed write keeps the bytes buffered and returns the error from the call that
// triggered it; only in xShmBarrier, which cannot fail, does it abort the process.
// A write transaction on a database file that its path no longer names (deleted, or
// replaced) is refused with SQLITE_READONLY_DBMOVED, as SQLite does itself only outside
// WAL mode; the path is looked at at most every 50 ms. The WAL file finds its database file with
// sqlite3_database_file_object(). Database files are forwarded as they are but for those two hooks.
// Sub-journals are forwarded with their writes cut into pieces the unix VFS takes whole
// (wal_buffer_vfs.cpp, journal_write); other journals and temporary files are the default VFS's own
// objects.
#pragma once

#include <cstdint>

namespace agentrt::core {

// Registers the shim (once per process, not as the default VFS) and returns its name
// for sqlite3_open_v2. Throws StoreError when there is no default VFS to wrap.
const char* wal_buffer_vfs();

// Process-wide counts for tests: xWrite calls SQLite made on WAL files opened through
// the shim, and the writes they became on the underlying files.
struct WalWriteCounts {
  uint64_t requested = 0;
  uint64_t written = 0;
};
WalWriteCounts wal_write_counts();

// Process-wide count for tests: sub-journals (a savepoint's or statement's page copies)
// that outgrew memory and were opened as temporary files by connections through the
// shim.
uint64_t subjournal_files_opened();

}  // namespace agentrt::core
