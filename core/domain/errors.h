// Errors the domain reports to whoever drives it. server/ maps each kind to its HTTP
// status and error code in one place; the domain never speaks HTTP.
#pragma once

#include <stdexcept>
#include <string>

namespace agentrt::core {

enum class ErrorKind {
  invalid,       // the request is wrong: 400
  unauthorized,  // no valid credentials: 401
  forbidden,     // valid credentials without the right: 403
  not_found,     // 404
  conflict,      // 409
  unavailable,   // a dependency (plugin, storage) cannot serve: 503
  internal,      // a bug or broken invariant: 500
};

class DomainError : public std::runtime_error {
 public:
  DomainError(ErrorKind kind, const std::string& message)
      : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
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
