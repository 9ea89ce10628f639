#include "wal_checkpointer.h"

#include <pthread.h>

#include <cstdint>

namespace agentrt::memory_sqlite {
namespace {

// The save that finds the WAL this many times past the threshold checkpoints itself.
constexpr int kInlineFactor = 4;

// A remainder this small is copied with saves held: a few milliseconds, most of them the
// two fdatasyncs every checkpoint makes.
constexpr int64_t kHeldRemainder = 2000;

}  // namespace

WalCheckpointer::WalCheckpointer(const std::string& path, Database& writer, std::mutex& write_mutex,
                                 int threshold_pages)
    : writer_(writer),
      write_mutex_(write_mutex),
      threshold_(threshold_pages),
      own_(path, OpenMode::kReadWrite) {
  // A connection opens the WAL at its first read; until then a checkpoint through it
  // reports "not in WAL mode" and copies nothing.
  own_.query_int("PRAGMA user_version");
  {
    std::lock_guard<std::mutex> lock(write_mutex_);
    // Replaces SQLite's automatic checkpoint, which is itself a WAL hook.
    sqlite3_wal_hook(writer_.handle(), &WalCheckpointer::on_commit, this);
  }
  thread_ = std::thread([this] { run(); });
}

WalCheckpointer::~WalCheckpointer() {
  {
    std::lock_guard<std::mutex> lock(write_mutex_);
    sqlite3_wal_hook(writer_.handle(), nullptr, nullptr);
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

int WalCheckpointer::on_commit(void* self, sqlite3* db, const char* schema, int wal_pages) {
  auto* c = static_cast<WalCheckpointer*>(self);
  if (wal_pages >= kInlineFactor * c->threshold_) {
    // SQLite refuses a second checkpoint while one runs, so wait for the thread's pass
    // to end; with the write mutex held here nothing is appended meanwhile, and this
    // one copies every frame.
    std::lock_guard<std::mutex> one_at_a_time(c->pass_mutex_);
    sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  } else if (wal_pages >= c->threshold_) {
    {
      std::lock_guard<std::mutex> lock(c->mutex_);
      c->due_ = true;
    }
    c->wake_.notify_one();
  }
  return SQLITE_OK;
}

void WalCheckpointer::run() {
  pthread_setname_np(pthread_self(), "agentrt-memckpt");
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return due_ || stop_; });
    if (stop_) return;
    due_ = false;
    lock.unlock();
    checkpoint();
    lock.lock();
  }
}

void WalCheckpointer::checkpoint() {
  int64_t before = INT64_MAX;
  for (;;) {
    int64_t left = pass();
    if (left == 0) return;
    if (left < kHeldRemainder || left >= before) break;
    before = left;
  }
  std::lock_guard<std::mutex> hold(write_mutex_);
  pass();
}

int64_t WalCheckpointer::pass() {
  std::lock_guard<std::mutex> one_at_a_time(pass_mutex_);
  int log = 0, copied = 0;
  int rc =
      sqlite3_wal_checkpoint_v2(own_.handle(), "main", SQLITE_CHECKPOINT_PASSIVE, &log, &copied);
  // SQLITE_BUSY: another process's checkpoint is under way; the next commit past the
  // threshold wakes this thread again.
  if (rc != SQLITE_OK || log < 0) return 0;
  return log - copied;
}

}  // namespace agentrt::memory_sqlite
