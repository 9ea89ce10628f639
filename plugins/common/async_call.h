// One completion started through ChatProvider::start: everything the call owns (its
// sink, key, request, decoder and libcurl state) and the rules that end it, the same
// rules and words as the blocking ChatProvider::complete. A TransferLoop drives it;
// from begin() on, every member is called on that loop's thread only.
#pragma once

#include "common/curl_transfer.h"
#include "common/delta_emitter.h"
#include "common/vendor_adapter.h"

#include <agentrt/plugin.hpp>

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace agentrt::providers {

class TransferLoop;

// What the host's wake callback is handed: the loop and the call's id, never the call,
// so a wake that races the call's end finds no call rather than freed memory.
struct WakeTarget {
  TransferLoop* loop = nullptr;
  uint64_t id = 0;
};

class AsyncCall {
 public:
  using Schedule = std::function<void(Clock::time_point)>;
  using Notify = std::function<void()>;

  // Runs on the starting thread; throws only what start() may throw. `key` and the
  // request's headers are wiped when the call ends.
  AsyncCall(sdk::AsyncSink sink, std::string key, HttpRequest request,
            const VendorAdapter& adapter);
  ~AsyncCall();
  AsyncCall(const AsyncCall&) = delete;
  AsyncCall& operator=(const AsyncCall&) = delete;

  uint64_t id() const { return wake_target_.id; }
  CURL* easy() const { return transfer_.easy; }
  // The handle begin() was given, for the loop to take back once the call is over.
  std::unique_ptr<EasyHandle> take_handle() { return std::move(handle_); }
  bool ended() const { return ended_; }
  Clock::time_point next_check() const { return next_check_; }

  // Takes `handle`, configured here for this call, registers `wake` (called with a
  // WakeTarget*) with the sink, and looks once for a cancel that came before.
  // `schedule` asks the loop for a check() at a given time; `unflushed` tells it, once
  // per pass, that the call holds text for flush_text().
  void begin(std::unique_ptr<EasyHandle> handle, WakeTarget target, void (*wake)(void*),
             Schedule schedule, Notify unflushed);
  // Sends the text of the loop's last pass over the sockets as one fragment
  // (delta_emitter.h); a sink that says stop ends the call.
  void flush_text();
  // libcurl finished the transfer with `code`.
  void transfer_done(CURLcode code);
  // The host said cancelled() may have changed.
  void woken();
  // Cancellation, stall and end grace, due at next_check().
  void check(Clock::time_point now);
  // Ends the call unless it already ended: with `failure`, or as a success when that
  // is null. report() then tells the sink.
  void end(std::exception_ptr failure);

  // The call's last act, once its easy handle is out of the multi handle: unregisters
  // the waker, wipes the secrets and ends the sink. The sink is not touched after.
  void report();

 private:
  void on_body(std::string_view bytes);
  Clock::time_point next_check_after(Clock::time_point now) const;

  sdk::AsyncSink sink_;
  std::string key_;
  HttpRequest request_;
  const VendorAdapter& adapter_;
  HeaderList headers_;
  DeltaEmitter emitter_;
  std::unique_ptr<StreamDecoder> decoder_;
  Transfer transfer_;
  std::unique_ptr<EasyHandle> handle_;
  WakeTarget wake_target_;
  Schedule schedule_;
  Notify unflushed_;
  bool text_held_ = false;  // unflushed_ was called since the last flush_text()
  bool waker_registered_ = false;
  std::optional<Clock::time_point> complete_at_;
  Clock::time_point next_check_;
  bool ended_ = false;
  std::exception_ptr failure_;  // how the call ended; none for success
};

}  // namespace agentrt::providers
