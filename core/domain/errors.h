// Errors the domain reports to whoever drives it. server/ maps each kind to its HTTP
// status and error code in one place; the domain never speaks HTTP.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace agentrt::core {

enum class ErrorKind {
  invalid,               // the request is wrong: 400
  unauthorized,          // no valid credentials: 401
  forbidden,             // valid credentials without the right: 403
  not_found,             // 404
  conflict,              // 409
  rate_limited,          // a rate limit or quota of the caller's is reached: 429
  unavailable,           // a dependency (plugin, storage) cannot serve: 503
  internal,              // a bug or broken invariant: 500
  provider_error,        // the provider refused or answered badly: 502
  provider_unavailable,  // the provider is down or overloaded: 503
  provider_timeout,      // the provider did not answer in time: 504
};

class DomainError : public std::runtime_error {
 public:
  DomainError(ErrorKind kind, const std::string& message)
      : std::runtime_error(message), kind_(kind) {}
  // A more specific code than the kind's own, e.g. (conflict, "session_busy").
  DomainError(ErrorKind kind, std::string code, const std::string& message)
      : std::runtime_error(message), kind_(kind), code_(std::move(code)) {}
  ErrorKind kind() const { return kind_; }
  const std::string& code() const { return code_; }  // empty: the kind's default

  // When trying again is worth it, and after how long (an upstream's Retry-After).
  DomainError& with_retry_after(int64_t seconds) {
    retry_after_s_ = seconds;
    return *this;
  }
  int64_t retry_after_s() const { return retry_after_s_; }  // 0: no hint

 private:
  ErrorKind kind_;
  std::string code_;
  int64_t retry_after_s_ = 0;
};

inline DomainError invalid(const std::string& message) {
  return {ErrorKind::invalid, message};
}
inline DomainError not_found(const std::string& message) {
  return {ErrorKind::not_found, message};
}
inline DomainError conflict(const std::string& message) {
  return {ErrorKind::conflict, message};
}

}  // namespace agentrt::core
