// The libcurl handles one worker thread drives its transfers with. Each thread keeps
// one easy handle and one multi handle for its whole life: the multi handle's
// connection cache keeps upstream connections warm between requests (about twice the
// throughput of fresh handles), and since no other thread ever touches them, nothing
// is shared or locked.
#pragma once

#include <curl/curl.h>

#include <memory>

namespace agentrt::providers {

// Calls curl_global_init once per process; call it before the first transfer (from a
// plugin's create, never from a static initialiser).
void ensure_curl_initialised();

// The calling thread's handles for the duration of one transfer. A transfer started
// while the thread's own pair is in use (a sink that calls back into a provider) gets
// a private pair instead, so the two never interfere.
class CurlLease {
 public:
  CurlLease();
  ~CurlLease();
  CurlLease(const CurlLease&) = delete;
  CurlLease& operator=(const CurlLease&) = delete;

  CURL* easy() const;
  CURLM* multi() const;

  // Adds the easy handle to the multi handle. Until the lease ends, the handle stays
  // attached; removing it before the transfer finished makes libcurl close that
  // connection, which is how a cancelled or failed transfer tells the upstream.
  void start();

 private:
  struct Pair;
  static Pair& thread_pair();

  Pair* pair_;
  std::unique_ptr<Pair> own_;  // set when the thread's pair was busy
  bool attached_ = false;
};

}  // namespace agentrt::providers
