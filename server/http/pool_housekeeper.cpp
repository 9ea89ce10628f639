#include "server/http/pool_housekeeper.h"

#include <chrono>

namespace agentrt::server {

PoolHousekeeper::PoolHousekeeper(Poco::ThreadPool& pool)
    : pool_(pool), thread_([this] { run(); }) {}

PoolHousekeeper::~PoolHousekeeper() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void PoolHousekeeper::run() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, std::chrono::seconds(1), [this] { return stopping_; })) {
    lock.unlock();
    // Joins the threads idle past the pool's idle time; the rest are left alone.
    pool_.collect();
    lock.lock();
  }
}

}  // namespace agentrt::server
