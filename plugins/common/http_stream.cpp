#include "common/http_stream.h"

#include "common/curl_handles.h"
#include "common/curl_transfer.h"

#include <agentrt/plugin.hpp>

#include <optional>

namespace agentrt::providers {
namespace {

std::optional<CURLcode> finished(CURLM* multi) {
  int queued = 0;
  while (CURLMsg* message = curl_multi_info_read(multi, &queued)) {
    if (message->msg == CURLMSG_DONE) return message->data.result;
  }
  return std::nullopt;
}

void wake_multi(void* multi) {
  curl_multi_wakeup(static_cast<CURLM*>(multi));
}

// Registered for the length of one transfer; unregistered before the multi handle
// goes back to the lease.
class WakerRegistration {
 public:
  WakerRegistration(const StreamCallbacks& callbacks, CURLM* multi) : callbacks_(callbacks) {
    registered_ = callbacks_.set_waker && callbacks_.set_waker(&wake_multi, multi);
  }
  ~WakerRegistration() {
    if (registered_) callbacks_.set_waker(nullptr, nullptr);
  }
  WakerRegistration(const WakerRegistration&) = delete;
  WakerRegistration& operator=(const WakerRegistration&) = delete;

  // How long the next wait may last: short while only polling can see a cancel, or
  // while the end grace runs.
  int wait_ms(bool complete, const HttpRequest& request) const {
    return static_cast<int>(complete ? kPollMs : check_interval_ms(registered_, request));
  }

 private:
  const StreamCallbacks& callbacks_;
  bool registered_ = false;
};

}  // namespace

HttpResponse post_streaming(const HttpRequest& request, const StreamCallbacks& callbacks) {
  // Declared before the lease so they outlive it: libcurl may still look at them
  // while the lease detaches the handle.
  Transfer t;
  t.on_body = callbacks.on_body;
  HeaderList headers(request);
  CurlLease lease;
  configure(lease.handle(), request, headers, t);
  lease.start();
  WakerRegistration waker(callbacks, lease.multi());
  std::optional<Clock::time_point> complete_at;
  for (;;) {
    int running = 0;
    // Body bytes reach the decoder from inside this call, and its text the sink right
    // after, before a failure is reported.
    CURLMcode rc = curl_multi_perform(lease.multi(), &running);
    if (t.failure) std::rethrow_exception(t.failure);
    if (callbacks.flush) callbacks.flush();
    if (rc != CURLM_OK)
      throw sdk::Error(AGENTRT_ERR_INTERNAL, std::string("libcurl: ") + curl_multi_strerror(rc));
    const bool complete = callbacks.complete && callbacks.complete();
    if (std::optional<CURLcode> done = finished(lease.multi())) {
      if (*done != CURLE_OK && !complete) throw transport_error(*done, t, request);
      return std::move(finish_response(t));
    }
    if (complete) {
      if (!complete_at) complete_at = Clock::now();
      if (Clock::now() - *complete_at > kEndGrace) return std::move(t.response);
    } else {
      if (callbacks.cancelled && callbacks.cancelled())
        throw sdk::Error(AGENTRT_ERR_CANCELLED, "cancelled");
      check_stall(t, request);
    }
    curl_multi_poll(lease.multi(), nullptr, 0, waker.wait_ms(complete, request), nullptr);
  }
}

}  // namespace agentrt::providers
