#include "server/http/accept_errors.h"

#include "core/log/logger.h"

#include <Poco/Exception.h>

#include <cerrno>

namespace agentrt::server {
namespace {

constexpr std::chrono::seconds kLogEvery{10};

bool out_of_descriptors(const Poco::Exception& e) {
  return e.code() == EMFILE || e.code() == ENFILE;
}

}  // namespace

void AcceptErrorLog::exception(const Poco::Exception& e) {
  report(e.displayText(), out_of_descriptors(e));
}

void AcceptErrorLog::exception(const std::exception& e) {
  report(e.what(), false);
}

void AcceptErrorLog::exception() {
  report("unknown exception", false);
}

void AcceptErrorLog::report(const std::string& what, bool out) {
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
