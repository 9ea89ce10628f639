// Moves the writer's WAL into memory.db from a thread of its own. SQLite's automatic
// checkpoint runs inside the save whose commit crosses its threshold: that save, and
// every one queued behind the write mutex, waited for 10,000 pages to be copied and two
// fdatasyncs (50 to 130 ms on a 1M-entry store). Here a commit only notes the WAL's
// size and, past the threshold, wakes this thread, which checkpoints PASSIVE through its
// own connection while saves go on.
//
// A pass copies the frames committed when it began. SQLite starts the WAL afresh only at
// a write that begins after a checkpoint copied every frame, which a pass that saves
// keep overtaking never does. So passes follow each other while each leaves fewer frames
// behind; the rest (or everything, once a pass leaves no fewer than the one before) is
// copied with the write mutex held, so the next save restarts the WAL.
//
// Should the thread fall behind past four times the threshold, the committing save waits
// for the thread's pass to end and checkpoints itself with saves held, as SQLite would
// have: the WAL stays bounded unless a reader's snapshot pins it.
#pragma once

#include "sqlite_db.h"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace agentrt::memory_sqlite {

class WalCheckpointer {
 public:
  // `writer` is the connection saves commit through, `write_mutex` the mutex they hold
  // while they do; both must outlive this object.
  WalCheckpointer(const std::string& path, Database& writer, std::mutex& write_mutex,
                  int threshold_pages);
  ~WalCheckpointer();  // detaches from the writer and ends the thread after its pass
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

 private:
  static int on_commit(void* self, sqlite3* db, const char* schema, int wal_pages);
  void run();
  void checkpoint();
  // Copies what it can without waiting; returns the WAL frames left uncopied.
  int64_t pass();

  Database& writer_;
  std::mutex& write_mutex_;
  const int threshold_;
  Database own_;
  // Held for each checkpoint, the thread's or a save's: SQLite would refuse the second.
  // Taken after write_mutex_ wherever both are held.
  std::mutex pass_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool due_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace agentrt::memory_sqlite
