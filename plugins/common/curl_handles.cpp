#include "common/curl_handles.h"

#include <agentrt/plugin.hpp>

#include <mutex>

namespace agentrt::providers {

struct CurlLease::Pair {
  CURL* easy = nullptr;
  CURLM* multi = nullptr;
  bool busy = false;

  Pair() : easy(curl_easy_init()), multi(curl_multi_init()) {
    if (!easy || !multi) {
      release();
      throw sdk::Error(AGENTRT_ERR_INTERNAL, "libcurl could not create its handles");
    }
  }
  ~Pair() { release(); }
  Pair(const Pair&) = delete;
  Pair& operator=(const Pair&) = delete;

  void release() {
    if (easy) curl_easy_cleanup(easy);
    if (multi) curl_multi_cleanup(multi);
    easy = nullptr;
    multi = nullptr;
  }
};

void ensure_curl_initialised() {
  static std::once_flag once;
  static CURLcode result = CURLE_OK;
  std::call_once(once, [] { result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (result != CURLE_OK)
    throw sdk::Error(AGENTRT_ERR_INTERNAL,
                     std::string("libcurl failed to initialise: ") + curl_easy_strerror(result));
}

CurlLease::CurlLease() {
  Pair* mine = &thread_pair();
  if (mine->busy) {
    own_ = std::make_unique<Pair>();
    mine = own_.get();
  }
  // No reset here: a handle is either new or was reset when its last lease ended.
  pair_ = mine;
  pair_->busy = true;
}

CurlLease::~CurlLease() {
  if (attached_) curl_multi_remove_handle(pair_->multi, pair_->easy);
  // Drop what the options pointed at (our headers, our buffers) before they die.
  curl_easy_reset(pair_->easy);
  pair_->busy = false;
}

CURL* CurlLease::easy() const {
  return pair_->easy;
}

CURLM* CurlLease::multi() const {
  return pair_->multi;
}

void CurlLease::start() {
  CURLMcode rc = curl_multi_add_handle(pair_->multi, pair_->easy);
  if (rc != CURLM_OK)
    throw sdk::Error(AGENTRT_ERR_INTERNAL,
                     std::string("libcurl refused the transfer: ") + curl_multi_strerror(rc));
  attached_ = true;
}

CurlLease::Pair& CurlLease::thread_pair() {
  thread_local Pair pair;
  return pair;
}

}  // namespace agentrt::providers
