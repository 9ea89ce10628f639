#include "common/curl_handles.h"

#include "common/curl_transfer.h"

#include <agentrt/plugin.hpp>

#include <cstdlib>
#include <mutex>

namespace agentrt::providers {

void ensure_curl_initialised() {
  static std::once_flag once;
  static CURLcode result = CURLE_OK;
  std::call_once(once, [] { result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (result != CURLE_OK)
    throw sdk::Error(AGENTRT_ERR_INTERNAL,
                     std::string("libcurl failed to initialise: ") + curl_easy_strerror(result));
}

namespace {

// Whether the environment names a proxy, or hosts to reach without one, for libcurl
// (the variables detect_proxy and create_conn_helper_init_proxy read in its url.c).
bool proxy_in_environment() {
  for (const char* name : {"http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
                           "no_proxy", "NO_PROXY"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && value[0] != '\0') return true;
  }
  return false;
}

}  // namespace

EasyHandle::EasyHandle() : easy_(curl_easy_init()) {
  if (!easy_) throw sdk::Error(AGENTRT_ERR_INTERNAL, "libcurl could not create its handles");
  set_shared_options(easy_);
  // Without any of them, an empty proxy and no-proxy list say what libcurl would find,
  // and spare it reading five variables of the environment at every transfer. agentd's
  // environment is the one it started with; a handle made later would see a change.
  if (!proxy_in_environment()) {
    curl_easy_setopt(easy_, CURLOPT_PROXY, "");
    curl_easy_setopt(easy_, CURLOPT_NOPROXY, "");
  }
}

EasyHandle::~EasyHandle() {
  // NOSIGNAL stays set (set_shared_options): with it off, curl_easy_cleanup installs
  // and restores a SIGPIPE handler, two sigaction calls a handle.
  curl_easy_cleanup(easy_);
  curl_url_cleanup(parsed_);
}

void EasyHandle::set_url(const std::string& url) {
  if (has_url_ && url == url_) return;
  curl_easy_setopt(easy_, CURLOPT_URL, url.c_str());
  // Parsed as libcurl parses a URL given as text (parseurlandfillconn in its url.c); a
  // URL this refuses is left to libcurl, to fail the transfer in its own words.
  CURLU* parsed = curl_url();
  if (parsed && curl_url_set(parsed, CURLUPART_URL, url.c_str(),
                             CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK) {
    curl_url_cleanup(parsed);
    parsed = nullptr;
  }
  curl_easy_setopt(easy_, CURLOPT_CURLU, parsed);
  curl_url_cleanup(parsed_);
  parsed_ = parsed;
  url_ = url;
  has_url_ = true;
}

void EasyHandle::clear_call() {
  curl_easy_setopt(easy_, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(easy_, CURLOPT_POSTFIELDS, nullptr);
  curl_easy_setopt(easy_, CURLOPT_ERRORBUFFER, nullptr);
  curl_easy_setopt(easy_, CURLOPT_WRITEDATA, nullptr);
  curl_easy_setopt(easy_, CURLOPT_PREREQDATA, nullptr);
  curl_easy_setopt(easy_, CURLOPT_PRIVATE, nullptr);
}

struct CurlLease::Pair {
  EasyHandle easy;
  CURLM* multi = curl_multi_init();
  bool busy = false;

  Pair() {
    if (!multi) throw sdk::Error(AGENTRT_ERR_INTERNAL, "libcurl could not create its handles");
  }
  ~Pair() { curl_multi_cleanup(multi); }
  Pair(const Pair&) = delete;
  Pair& operator=(const Pair&) = delete;
};

CurlLease::CurlLease() {
  Pair* mine = &thread_pair();
  if (mine->busy) {
    own_ = std::make_unique<Pair>();
    mine = own_.get();
  }
  pair_ = mine;
  pair_->busy = true;
}

CurlLease::~CurlLease() {
  if (attached_) curl_multi_remove_handle(pair_->multi, pair_->easy.get());
  // Drop what the options pointed at (our headers, our buffers) before they die.
  pair_->easy.clear_call();
  pair_->busy = false;
}

EasyHandle& CurlLease::handle() const {
  return pair_->easy;
}

CURLM* CurlLease::multi() const {
  return pair_->multi;
}

void CurlLease::start() {
  CURLMcode rc = curl_multi_add_handle(pair_->multi, pair_->easy.get());
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
