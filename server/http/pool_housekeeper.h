// Retires the connection pool's idle threads on a clock. Poco's ThreadPool does so only
// when it starts a thread (every 32nd start), so after a burst served by keep-alive
// clients a thousand idle threads would stay for good, each with its stack and the
// upstream connection it kept warm.
#pragma once

#include <Poco/ThreadPool.h>

#include <condition_variable>
#include <mutex>
#include <thread>

namespace agentrt::server {

class PoolHousekeeper {
 public:
  // Calls pool.collect() every second until destroyed; `pool` must outlive it.
  explicit PoolHousekeeper(Poco::ThreadPool& pool);
  ~PoolHousekeeper();
  PoolHousekeeper(const PoolHousekeeper&) = delete;
  PoolHousekeeper& operator=(const PoolHousekeeper&) = delete;

 private:
  void run();

  Poco::ThreadPool& pool_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace agentrt::server
