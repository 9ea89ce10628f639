#include "reader_pool.h"

namespace agentrt::memory_sqlite {

ReaderPool::ReaderPool(std::string path, size_t max_connections)
    : path_(std::move(path)), max_(max_connections) {}

ReaderPool::Lease ReaderPool::acquire() {
  std::unique_lock<std::mutex> lock(mutex_);
  released_.wait(lock, [&] { return !idle_.empty() || open_ < max_; });
  if (!idle_.empty()) {
    std::unique_ptr<Connection> c = std::move(idle_.back());
    idle_.pop_back();
    return Lease(*this, std::move(c));
  }
  ++open_;
  lock.unlock();
  // Opened outside the lock: opening reads the schema, and others may proceed meanwhile.
  try {
    return Lease(*this, open_reader(path_));
  } catch (...) {
    std::lock_guard<std::mutex> relock(mutex_);
    --open_;
    released_.notify_one();
    throw;
  }
}

void ReaderPool::release(std::unique_ptr<Connection> c) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    idle_.push_back(std::move(c));
  }
  released_.notify_one();
}

}  // namespace agentrt::memory_sqlite
