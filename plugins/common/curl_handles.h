// The libcurl handles the transfers are driven with. A worker thread keeps one easy
// handle and one multi handle for its whole life: the multi handle's connection cache
// keeps upstream connections warm between requests (about twice the throughput of
// fresh handles), and since no other thread ever touches them, nothing is shared or
// locked. The transfer loops keep easy handles of their own (transfer_loop.h).
#pragma once

#include <curl/curl.h>

#include <memory>
#include <string>

namespace agentrt::providers {

// Calls curl_global_init once per process; call it before the first transfer (from a
// plugin's create, never from a static initialiser).
void ensure_curl_initialised();

// One easy handle kept for many transfers. The options every transfer shares are set
// once, when it is made (set_shared_options, curl_transfer.h), and a transfer sets
// only its own, where a curl_easy_reset and setting them all again came before each.
// The URL of the last transfer is kept parsed (CURLOPT_CURLU), so that libcurl copies
// it rather than parses it and prints it back out at each transfer. The two cut about
// 21,000 instructions a /chat (bench/ab/ab.sh with CALLGRIND=1 C=1). The handle also
// reads the proxy variables once (curl_handles.cpp).
class EasyHandle {
 public:
  // Throws sdk::Error(INTERNAL) when libcurl cannot make the handle.
  EasyHandle();
  ~EasyHandle();
  EasyHandle(const EasyHandle&) = delete;
  EasyHandle& operator=(const EasyHandle&) = delete;

  CURL* get() const { return easy_; }
  // Points the next transfer at `url`, parsing it only when it changed.
  void set_url(const std::string& url);
  // Drops what the last transfer's options pointed at (its headers, body and state)
  // before that memory goes; the shared options and the URL stay.
  void clear_call();

 private:
  CURL* easy_ = nullptr;
  CURLU* parsed_ = nullptr;  // of url_, when libcurl's URL parser took it
  std::string url_;
  bool has_url_ = false;
};

// The calling thread's handles for the duration of one transfer. A transfer started
// while the thread's own pair is in use (a sink that calls back into a provider) gets
// a private pair instead, so the two never interfere.
class CurlLease {
 public:
  CurlLease();
  ~CurlLease();
  CurlLease(const CurlLease&) = delete;
  CurlLease& operator=(const CurlLease&) = delete;

  EasyHandle& handle() const;
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
