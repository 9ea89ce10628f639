#include "common/async_call.h"

#include "common/error_mapping.h"
#include "common/secret_wipe.h"

namespace agentrt::providers {
namespace {

// What `failure` says, as the blocking path's trampoline would report it.
sdk::Error as_error(std::exception_ptr failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const sdk::Error& e) {
    return e;
  } catch (const std::exception& e) {
    return sdk::Error(AGENTRT_ERR_INTERNAL, e.what());
  } catch (...) {
    return sdk::Error(AGENTRT_ERR_INTERNAL, "unknown exception");
  }
}

std::exception_ptr cancelled() {
  return std::make_exception_ptr(sdk::Error(AGENTRT_ERR_CANCELLED, "cancelled"));
}

}  // namespace

AsyncCall::AsyncCall(sdk::AsyncSink sink, std::string key, HttpRequest request,
                     const VendorAdapter& adapter)
    : sink_(sink),
      key_(std::move(key)),
      request_(std::move(request)),
      adapter_(adapter),
      headers_(request_),
      emitter_(sink_),
      decoder_(adapter_.decoder(emitter_)) {
  transfer_.on_body = [this](std::string_view bytes) { on_body(bytes); };
}

AsyncCall::~AsyncCall() {
  // A call that never got to report (start() failed after building it) still must
  // not leave the key behind.
  wipe(key_);
  wipe(request_.headers);
}

void AsyncCall::begin(std::unique_ptr<EasyHandle> handle, WakeTarget target, void (*wake)(void*),
                      Schedule schedule, Notify unflushed) {
  handle_ = std::move(handle);
  configure(*handle_, request_, headers_, transfer_);
  curl_easy_setopt(transfer_.easy, CURLOPT_PRIVATE, this);
  transfer_.last_activity = Clock::now();
  wake_target_ = target;
  schedule_ = std::move(schedule);
  unflushed_ = std::move(unflushed);
  waker_registered_ = sink_.set_waker(wake, &wake_target_);
  next_check_ = next_check_after(Clock::now());
  // A cancel that landed before the waker was registered woke nobody.
  if (sink_.cancelled()) end(cancelled());
}

void AsyncCall::on_body(std::string_view bytes) {
  decoder_->feed(bytes);
  if (!text_held_ && emitter_.has_pending()) {
    text_held_ = true;
    unflushed_();
  }
  if (!complete_at_ && decoder_->complete()) {
    // From the end marker on, the upstream has the end grace to close the response.
    complete_at_ = Clock::now();
    next_check_ = *complete_at_ + kEndGrace;
    schedule_(next_check_);
  }
}

void AsyncCall::transfer_done(CURLcode code) {
  if (ended_) return;
  try {
    // Text that arrived before a failure already went out: the loop flushes its pass
    // (TransferLoop::flush_texts) before it reaps finished transfers.
    if (transfer_.failure) std::rethrow_exception(transfer_.failure);
    if (code != CURLE_OK && !decoder_->complete()) throw transport_error(code, transfer_, request_);
    end_response(finish_response(transfer_), adapter_, *decoder_, key_);
    end(nullptr);
  } catch (...) {
    end(std::current_exception());
  }
}

void AsyncCall::flush_text() {
  text_held_ = false;
  if (ended_) return;
  try {
    emitter_.flush();
  } catch (...) {
    end(std::current_exception());
  }
}

void AsyncCall::woken() {
  if (!ended_ && !complete_at_ && sink_.cancelled()) end(cancelled());
}

void AsyncCall::check(Clock::time_point now) {
  if (ended_) return;
  try {
    if (complete_at_) {
      next_check_ = *complete_at_ + kEndGrace;
      if (now < next_check_) return;
      // The answer is whole; an upstream that keeps the response open no longer matters.
      end_response(transfer_.response, adapter_, *decoder_, key_);
      end(nullptr);
      return;
    }
    if (sink_.cancelled()) throw sdk::Error(AGENTRT_ERR_CANCELLED, "cancelled");
    check_stall(transfer_, request_);
    next_check_ = next_check_after(now);
  } catch (...) {
    end(std::current_exception());
  }
}

// The next check, at the usual interval: libcurl keeps the connect timeout itself.
Clock::time_point AsyncCall::next_check_after(Clock::time_point now) const {
  return now + std::chrono::milliseconds(check_interval_ms(waker_registered_, request_));
}

void AsyncCall::end(std::exception_ptr failure) {
  if (ended_) return;
  ended_ = true;
  failure_ = std::move(failure);
}

void AsyncCall::report() {
  if (waker_registered_) sink_.set_waker(nullptr, nullptr);
  waker_registered_ = false;
  std::optional<sdk::Error> error;
  if (failure_)
    error = redact(as_error(failure_), key_);
  else if (!ended_)
    error = sdk::Error(AGENTRT_ERR_INTERNAL, "the call ended without a result");
  failure_ = nullptr;
  wipe(request_.headers);
  wipe(key_);
  if (error)
    sink_.fail(*error);
  else
    sink_.succeed();
}

}  // namespace agentrt::providers
