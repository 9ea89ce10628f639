// What one libcurl transfer of a streaming POST needs, whoever drives it: the blocking
// path (post_streaming, a multi handle per thread) and the transfer loops of
// ChatProvider::start (one multi handle for many calls). Both must fail the same way
// with the same words, so the options, the callbacks, the stall rule and the mapping
// of libcurl's errors live here once.
#pragma once

#include "common/curl_handles.h"
#include "common/http_response.h"
#include "common/http_stream.h"

#include <curl/curl.h>
#include <agentrt/plugin.hpp>

#include <chrono>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::providers {

using Clock = std::chrono::steady_clock;

// How often cancellation and stall are checked while only polling can see a cancel.
constexpr long kPollMs = 25;
// With a host that wakes the call on cancellation, checks happen at least this often
// for the host's idle work (keep-alives, client checks) and for the stall limit.
constexpr long kWokenPollMs = 1000;
// After the end marker, how long the upstream may take to end the response before
// we stop waiting for a formality.
constexpr auto kEndGrace = std::chrono::milliseconds(200);

// The time between two checks of cancellation and stall: short while only polling
// can see a cancel, otherwise a quarter of the stall limit, within bounds.
long check_interval_ms(bool woken, const HttpRequest& request);

// The state libcurl's callbacks write into. Its address is handed to libcurl, so it
// never moves.
struct Transfer {
  Transfer() = default;
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  HttpResponse response;
  CURL* easy = nullptr;
  // 2xx body bytes; may throw to end the transfer.
  std::function<void(std::string_view)> on_body;
  std::exception_ptr failure;  // what on_body threw, rethrown once libcurl returns
  bool connected = false;      // the request is on its way (connect phase over)
  curl_off_t uploaded = 0;
  long head_bytes = 0;  // of the answer's status line and fields, as check_stall last saw
  Clock::time_point last_activity = Clock::now();
  char error_buffer[CURL_ERROR_SIZE] = {0};
};

// Throws Error(INVALID_ARGUMENT) when a header line holds a CR or LF.
void refuse_line_breaks(const std::vector<std::string>& lines);

// The request's header list, for the life of the transfer: its header lines and its
// User-Agent, in nodes of libcurl's list type that point at the request's own lines.
// libcurl makes no copies of them then (curl_slist_append makes two allocations a
// line), and none that hold the key and would need wiping. The request must outlive
// the list. Refuses lines that hold a line break (refuse_line_breaks).
class HeaderList {
 public:
  explicit HeaderList(const HttpRequest& request);
  HeaderList(const HeaderList&) = delete;
  HeaderList& operator=(const HeaderList&) = delete;
  curl_slist* get() { return nodes_.empty() ? nullptr : nodes_.data(); }

 private:
  void link(const char* line);
  std::string user_agent_;
  std::vector<curl_slist> nodes_;  // reserved up front: the links point into it
};

// Sets on a new easy handle the options every transfer shares: the protocols, HTTP/1.1,
// POST, no signals, TCP keep-alive probes and the callbacks (EasyHandle).
void set_shared_options(CURL* easy);

// Sets the options of `request` on `handle` and makes it `t.easy`, with `t` receiving
// the callbacks. `request` and `headers` must outlive the transfer; the handle's
// clear_call() drops them.
void configure(EasyHandle& handle, const HttpRequest& request, HeaderList& headers, Transfer& t);

// The status of the answer so far; 0 before its status line.
long answer_status(const Transfer& t);

// The response of a transfer libcurl ended: its status and, when it is not a 2xx, its
// header fields (names lower-cased, a repeated field's values joined with ", ").
HttpResponse& finish_response(Transfer& t);

// Throws Error(TIMEOUT) when the upstream has been silent for longer than allowed.
void check_stall(Transfer& t, const HttpRequest& request);

// The error for a transfer libcurl ended with `code`.
sdk::Error transport_error(CURLcode code, const Transfer& t, const HttpRequest& request);

}  // namespace agentrt::providers
