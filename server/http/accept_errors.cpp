#include "server/http/accept_errors.h"

#include "core/log/logger.h"

#include <Poco/Exception.h>

#include <cerrno>
#include <cstring>

namespace agentrt::server {
namespace {

constexpr std::chrono::seconds kLogEvery{10};

// UBSan's vptr check proves an object's vtable readable by writing it to a pipe, and
// these run when accept() failed for want of a descriptor: the pipe fails too, and the
// check reports a valid exception as an invalid object. So the calls here are not
// checked, and only Poco's out-of-line members are called (its inline code() would be
// checked where it is inlined): the system's text says what code() would.
#define AGENTRT_NO_VPTR_CHECK __attribute__((no_sanitize("vptr")))

bool out_of_descriptors(const std::string& text) {
  return text.find(std::strerror(EMFILE)) != std::string::npos ||
         text.find(std::strerror(ENFILE)) != std::string::npos;
}

}  // namespace

AGENTRT_NO_VPTR_CHECK void AcceptErrorLog::exception(const Poco::Exception& e) {
  const std::string text = e.displayText();
  report(text, out_of_descriptors(text));
}

AGENTRT_NO_VPTR_CHECK void AcceptErrorLog::exception(const std::exception& e) {
  report(e.what(), false);
}

void AcceptErrorLog::exception() {
  report("unknown exception", false);
}

std::atomic<int> AcceptErrorLog::stopping_{0};

AcceptErrorLog::Stopping::Stopping() {
  ++stopping_;
}

AcceptErrorLog::Stopping::~Stopping() {
  --stopping_;
}

void AcceptErrorLog::report(const std::string& what, bool out) {
  if (stopping_.load() > 0) return;
  unsigned held_back = 0;
  {
    std::lock_guard lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    if (last_ != std::chrono::steady_clock::time_point{} && now - last_ < kLogEvery) {
      ++held_back_;
      return;
    }
    last_ = now;
    held_back = held_back_;
    held_back_ = 0;
  }
  nlohmann::json fields = {{"error", what}, {"repeats_held_back", held_back}};
  if (out) {
    fields["hint"] =
        "out of file descriptors: new clients wait in the listen backlog; raise the open-file "
        "limit (LimitNOFILE) or lower server.threads";
    core::log_error("cannot accept connections", fields);
  } else {
    core::log_warn("connection error", fields);
  }
}

void AcceptErrorLog::install() {
  static AcceptErrorLog handler;
  Poco::ErrorHandler::set(&handler);
}

}  // namespace agentrt::server
