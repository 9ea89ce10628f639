#include "core/store/wal_checkpointer.h"

#include "core/log/logger.h"

namespace agentrt::core {

WalCheckpointer::WalCheckpointer(const std::string& path, Connection& writer, WriteBatcher& batcher,
                                 int threshold_frames)
    : writer_(writer),
      batcher_(batcher),
      own_(std::make_unique<Connection>(path)),
      threshold_(threshold_frames) {
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
}

uint64_t WalCheckpointer::completed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_;
}

int WalCheckpointer::on_commit(void* self, sqlite3*, const char*, int frames) {
  auto* checkpointer = static_cast<WalCheckpointer*>(self);
  if (frames < checkpointer->threshold_) return SQLITE_OK;
  {
    std::lock_guard<std::mutex> lock(checkpointer->mutex_);
    checkpointer->due_ = true;
  }
  checkpointer->wake_.notify_one();
  return SQLITE_OK;
}

void WalCheckpointer::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return due_ || stopping_; });
    if (stopping_) return;
    due_ = false;
    lock.unlock();
    checkpoint();
    lock.lock();
    ++completed_;
  }
}

void WalCheckpointer::checkpoint() {
  auto passive = [this](int& log_frames, int& copied) {
    int rc = sqlite3_wal_checkpoint_v2(own_->handle(), nullptr, SQLITE_CHECKPOINT_PASSIVE,
                                       &log_frames, &copied);
    // BUSY only means another checkpoint ran; the next commit past the threshold retries.
    if (rc != SQLITE_OK && rc != SQLITE_BUSY)
      log_warn("WAL checkpoint failed", {{"error", sqlite3_errstr(rc)}});
    return rc == SQLITE_OK;
  };
  int log_frames = 0, copied = 0;
  if (!passive(log_frames, copied) || copied >= log_frames) return;
  // Frames appended while the first pass ran; a reader still on an old snapshot can
  // leave some behind even now, which the next round picks up.
  batcher_.exclusive([&] { passive(log_frames, copied); });
}

}  // namespace agentrt::core
