#include "core/store/wal_checkpointer.h"

#include "core/log/logger.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <limits>

namespace agentrt::core {
namespace {

bool has_sys_nice_capability() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
  if (::syscall(SYS_capget, &header, data) != 0) return false;
  return (data[CAP_SYS_NICE / 32].effective & (1u << (CAP_SYS_NICE % 32))) != 0;
}

// What the kernel asks before it lets a thread at `nice` out of SCHED_IDLE (can_nice).
bool may_leave_idle_policy(int nice) {
  rlimit limit{};
  const auto needed = static_cast<rlim_t>(20 - nice);
  return (::getrlimit(RLIMIT_NICE, &limit) == 0 && limit.rlim_cur >= needed) ||
         has_sys_nice_capability();
}

}  // namespace

WalCheckpointer::WalCheckpointer(const std::string& path, Connection& writer, WriteBatcher& batcher,
                                 int threshold_frames)
    : wal_path_(path + "-wal"),
      writer_(writer),
      batcher_(batcher),
      own_(std::make_unique<Connection>(path)),
      threshold_(threshold_frames) {
  Statement page_size = writer_.prepare("PRAGMA page_size");
  writeback_frames_ =
      kWritebackBytes / static_cast<int>(page_size.step() ? page_size.column_int(0) : 4096);
  // After a checkpoint let the writer restart the WAL from its start, and cut the file
  // back, so a burst does not leave a huge -wal file behind for good.
  own_->exec("PRAGMA journal_size_limit=67108864");
  writer_.exec("PRAGMA journal_size_limit=67108864");
  thread_ = std::thread([this] { run(); });
  // Replaces SQLite's own hook, which is what wal_autocheckpoint installs.
  sqlite3_wal_hook(writer_.handle(), &WalCheckpointer::on_commit, this);
}

WalCheckpointer::~WalCheckpointer() {
  sqlite3_wal_hook(writer_.handle(), nullptr, nullptr);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
  if (wal_fd_ >= 0) ::close(wal_fd_);
}

uint64_t WalCheckpointer::completed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_;
}

int WalCheckpointer::on_commit(void* self, sqlite3*, const char*, int frames) {
  auto* c = static_cast<WalCheckpointer*>(self);
  if (frames < c->wal_frames_.load(std::memory_order_relaxed)) {  // the WAL restarted
    c->written_back_at_ = 0;
    c->restarts_.fetch_add(1, std::memory_order_relaxed);
  }
  c->wal_frames_.store(frames, std::memory_order_relaxed);
  const bool checkpoint = frames >= c->threshold_;
  const bool writeback = frames - c->written_back_at_ >= c->writeback_frames_;
  if (!checkpoint && !writeback) return SQLITE_OK;
  if (writeback) c->written_back_at_ = frames;
  // Starved under SCHED_IDLE while the cores are busy: back to a share of the CPU.
  if (frames >= 2 * c->threshold_) c->leave_idle_policy();
  {
    std::lock_guard<std::mutex> lock(c->mutex_);
    c->due_ = c->due_ || checkpoint;
    c->writeback_due_ = c->writeback_due_ || writeback;
  }
  c->wake_.notify_one();
  return SQLITE_OK;
}

void WalCheckpointer::run() {
  // Copying thousands of pages takes this thread tens of milliseconds of CPU; niced,
  // it takes what request threads leave rather than turns with them (c=1 /chat p99
  // 0.93 -> 0.79 ms). If they leave nothing the WAL grows until the catch-up pass
  // holds writers back, which frees the CPU it needs.
  pthread_setname_np(pthread_self(), "agentrt-ckpt");
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kNice);
  tid_.store(gettid(), std::memory_order_release);
  idle_allowed_ = may_leave_idle_policy(kNice);
  if (!use_idle_policy()) {
    log_info("WAL checkpoint thread shares the CPU at nice 19, not on idle CPU only",
             {{"reason",
               "the process may not take a thread out of SCHED_IDLE: RLIMIT_NICE below 1 "
               "and no CAP_SYS_NICE (systemd: LimitNICE=+19)"}});
  }
  settled_.store(true, std::memory_order_release);
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return due_ || writeback_due_ || stopping_; });
    if (stopping_) return;
    const bool checkpoint_now = due_;
    due_ = writeback_due_ = false;
    lock.unlock();
    const bool restarts = checkpoint_now && checkpoint();
    if (restarts && ::sched_getscheduler(0) != SCHED_IDLE) use_idle_policy();
    if (!checkpoint_now) start_writeback();
    lock.lock();
    // The commits that asked meanwhile are covered; if the WAL does not restart after
    // all (a reader still on a snapshot in it), the next commit asks again.
    if (restarts) due_ = false;
    if (checkpoint_now) ++completed_;
  }
}

// A checkpoint first makes the WAL durable: with up to 32 MB of it dirty in the page
// cache that fdatasync took 20 ms on this machine's disk and held up the processes
// around it for a few more, which was most of the /chat p99 (c=1: 2.1 -> 0.9 ms).
// Starting the write-out every megabyte leaves the checkpoint's fdatasync little to
// do. sync_file_range only queues writes and promises nothing about durability, which
// stays SQLite's business.
void WalCheckpointer::start_writeback() {
  if (wal_fd_ < 0) wal_fd_ = ::open(wal_path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (wal_fd_ >= 0 && ::sync_file_range(wal_fd_, 0, 0, SYNC_FILE_RANGE_WRITE) == 0)
    writebacks_.fetch_add(1, std::memory_order_relaxed);
}

// Only this thread sets SCHED_IDLE; the writer only takes it back (on_commit), by the
// kernel's word rather than a flag of ours: once under SCHED_IDLE on busy cores the
// thread may get no CPU to say so, and a writer going by a flag let 50 commits past
// twice the threshold go by (a sanitizer run). A writer that asks just before the
// thread takes the policy finds it at its next commit past twice the threshold.
bool WalCheckpointer::use_idle_policy() {
  const sched_param param{};
  return idle_allowed_ && ::sched_setscheduler(0, SCHED_IDLE, &param) == 0;
}

void WalCheckpointer::leave_idle_policy() {
  const pid_t tid = tid_.load(std::memory_order_acquire);
  if (tid == 0 || ::sched_getscheduler(tid) != SCHED_IDLE) return;
  const sched_param param{};
  ::sched_setscheduler(tid, SCHED_OTHER, &param);
}

bool WalCheckpointer::passive(int& log_frames, int& copied) {
  int rc = sqlite3_wal_checkpoint_v2(own_->handle(), nullptr, SQLITE_CHECKPOINT_PASSIVE,
                                     &log_frames, &copied);
  // BUSY only means another checkpoint ran; the next commit past the threshold retries.
  if (rc != SQLITE_OK && rc != SQLITE_BUSY)
    log_warn("WAL checkpoint failed", {{"error", sqlite3_errstr(rc)}});
  // Fewer copied than the pass saw: a reader on an older snapshot holds the rest back.
  return rc == SQLITE_OK && copied >= log_frames;
}

bool WalCheckpointer::checkpoint() {
  int log_frames = 0, copied = 0;
  int previous_behind = std::numeric_limits<int>::max();
  for (;;) {
    if (!passive(log_frames, copied)) return false;
    // Committed while the pass ran (negative if the WAL restarted meanwhile).
    const int behind = wal_frames_.load(std::memory_order_relaxed) - log_frames;
    if (behind <= 0) return true;  // unless a write is under way; then the next asks again
    if (behind < previous_behind) {
      previous_behind = behind;
      continue;
    }
    // No fewer left than after the pass before: another free pass would not catch up.
    // At one request at a time a pass's own fdatasyncs outlast the gap between two
    // commits, so writers are held for the few frames left. Under load commits come in
    // batches with gaps between them and a later pass usually ends in one, whereas a
    // hold makes every waiting request pay for it: c=64 p99 13 -> 20-25 ms, and at
    // 2,000 streams, with this thread niced on busy cores, the fewest live streams
    // 1,900 -> 1,430. There writers are never held.
    if (batcher_.coming() <= 1) break;
    return false;  // the next commit asks again
  }
  bool caught_up = false;
  held_.fetch_add(1, std::memory_order_relaxed);
  batcher_.exclusive([&] { caught_up = passive(log_frames, copied); });
  return caught_up;
}

}  // namespace agentrt::core
