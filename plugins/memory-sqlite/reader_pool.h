// Read-only connections handed out one caller at a time. WAL lets readers run beside
// the writer and beside each other, so counts and searches never wait for a save.
#pragma once

#include "connection.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace agentrt::memory_sqlite {

class ReaderPool {
 public:
  ReaderPool(std::string path, size_t max_connections);

  class Lease {
   public:
    Lease(ReaderPool& pool, std::unique_ptr<Connection> c) : pool_(pool), c_(std::move(c)) {}
    ~Lease() { pool_.release(std::move(c_)); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Connection& operator*() { return *c_; }
    Connection* operator->() { return c_.get(); }

   private:
    ReaderPool& pool_;
    std::unique_ptr<Connection> c_;
  };

  // An idle connection, a new one while fewer than the maximum exist, or else the next
  // one released.
  Lease acquire();

 private:
  void release(std::unique_ptr<Connection> c);

  const std::string path_;
  const size_t max_;
  std::mutex mutex_;
  std::condition_variable released_;
  std::vector<std::unique_ptr<Connection>> idle_;
  size_t open_ = 0;
};

}  // namespace agentrt::memory_sqlite
