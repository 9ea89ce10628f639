// Moves the writer's WAL into the database file from a thread of its own. SQLite's
// automatic checkpoint runs inside the COMMIT that crosses its threshold, with two
// fdatasync calls, so one request in every few hundred paid for everyone's writes:
// that was the /chat p99. Here the writer's commits only count WAL frames and wake
// this thread, which checkpoints PASSIVE (never waiting on readers or the writer)
// through its own connection.
//
// A pass copies the frames committed when it began; a writer that never pauses has
// appended more by its end, and SQLite restarts the WAL only at a write that begins
// after a checkpoint copied every frame. So passes follow each other, each copying
// what was committed during the one before, until few frames are left (or a pass
// leaves no fewer than the one before: a writer adding new pages as fast as a pass
// copies them); those are then copied with writers held back for that moment
// (WriteBatcher::exclusive), and the next write restarts the WAL. While several runs
// are on their way (WriteBatcher::Coming) writers are never held: their commits come
// in batches with gaps between them, a later free pass usually ends in one, and a
// hold would make every waiting request pay. Without the last
// step a restart needed a pass to end exactly between two commits: at one request at a time, about
// 80 passes (each with its fdatasync) per restart, the WAL past twice the threshold for good.
// Between checkpoints the same thread starts the WAL's write-out to disk every
// megabyte, so a checkpoint's own fdatasync of the WAL finds little left to write.
//
// The thread runs under SCHED_IDLE: agentd's other threads run under SCHED_BATCH
// (server.batch_scheduling), and a woken batch thread preempts only an idle-policy
// one. Under any other policy, even niced, a woken request thread waits for this one
// to use up its slice, up to a scheduler tick (4 ms here). An idle-policy thread gets
// almost no CPU while the cores are busy, so once the WAL passes twice the threshold
// the writer moves it back to SCHED_OTHER (still niced) until the WAL restarts.
// Linux lets a thread out of SCHED_IDLE only with CAP_SYS_NICE or an RLIMIT_NICE that
// allows its nice value (sched(7); 1, i.e. nice 19, for this thread): a service run as
// a plain user has neither unless it is given one (packaging/agentd.service sets
// LimitNICE=+19). Without, the thread never takes SCHED_IDLE, as it could not be given
// the CPU back, and runs niced under SCHED_OTHER.
#pragma once

#include "core/store/sqlite.h"
#include "core/store/write_batcher.h"

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace agentrt::core {

class WalCheckpointer {
 public:
  // WAL frames (pages) after which a checkpoint is due. Eight times SQLite's default:
  // a checkpoint writes each page once however often it changed meanwhile, and the hot
  // pages (table tails, index roots) change with every run, so fewer, larger
  // checkpoints write much less (16 MB of WAL with 2 KB pages, 32 MB with 4 KB).
  static constexpr int kDefaultThreshold = 8000;
  // WAL bytes after which their write-out to disk is started in the background.
  static constexpr int kWritebackBytes = 1 << 20;
  static constexpr int kNice = 19;  // the checkpoint thread's

  WalCheckpointer(const std::string& path, Connection& writer, WriteBatcher& batcher,
                  int threshold_frames = kDefaultThreshold);
  ~WalCheckpointer();  // detaches from the writer, finishes a running checkpoint
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

  // Checkpoints completed so far (tests and diagnostics).
  uint64_t completed() const;
  // Background write-outs of the WAL started so far (tests and diagnostics).
  uint64_t writebacks() const { return writebacks_.load(std::memory_order_relaxed); }
  // Times a write started the WAL afresh after a checkpoint, and catch-ups made with
  // writers held (tests and diagnostics).
  uint64_t restarts() const { return restarts_.load(std::memory_order_relaxed); }
  uint64_t held() const { return held_.load(std::memory_order_relaxed); }
  // The checkpoint thread's id once it runs, else 0 (tests and diagnostics).
  pid_t thread_id() const { return tid_.load(std::memory_order_acquire); }
  // Whether the thread has settled its scheduling (use_idle_policy) (tests).
  bool settled() const { return settled_.load(std::memory_order_acquire); }

 private:
  static int on_commit(void* self, sqlite3*, const char*, int frames);
  void run();
  bool checkpoint();  // true when the next write restarts the WAL
  bool passive(int& log_frames, int& copied);
  bool use_idle_policy();  // true when the thread took SCHED_IDLE
  void leave_idle_policy();
  void start_writeback();

  const std::string wal_path_;
  int wal_fd_ = -1;                 // the checkpoint thread's own, for sync_file_range
  int written_back_at_ = 0;         // WAL frames when writeback last started (writer thread)
  int writeback_frames_ = 0;        // kWritebackBytes in frames of this database
  std::atomic<int> wal_frames_{0};  // the WAL's frames after the last commit
  Connection& writer_;
  WriteBatcher& batcher_;
  std::unique_ptr<Connection> own_;
  const int threshold_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool due_ = false;
  bool writeback_due_ = false;
  bool stopping_ = false;
  uint64_t completed_ = 0;
  std::atomic<uint64_t> writebacks_{0};
  std::atomic<uint64_t> restarts_{0};
  std::atomic<uint64_t> held_{0};
  std::atomic<pid_t> tid_{0};
  std::atomic<bool> settled_{false};
  bool idle_allowed_ = false;  // the thread may be taken out of SCHED_IDLE (run(), once)
  std::thread thread_;
};

}  // namespace agentrt::core
