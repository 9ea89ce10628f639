// The one place that knows the API's error codes, their HTTP statuses and the error
// body. Handlers and middleware throw ApiError; the pipeline turns it into a response.
#pragma once

#include "core/domain/errors.h"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentrt::server {

enum class ErrorCode {
  invalid_request,
  unauthorized,
  forbidden,
  not_found,
  method_not_allowed,
  conflict,
  payload_too_large,
  unsupported_media_type,
  rate_limited,
  internal,
  provider_error,
  provider_unavailable,
  provider_timeout,
};

const char* error_code_name(ErrorCode code);
int error_http_status(ErrorCode code);

class ApiError : public std::runtime_error {
 public:
  using Header = std::pair<std::string, std::string>;

  ApiError(ErrorCode kind, const std::string& message);
  // A more specific code string with the status of `kind`, e.g. (conflict, "session_busy").
  ApiError(ErrorCode kind, std::string code, const std::string& message);

  ErrorCode kind() const { return kind_; }
  const std::string& code() const { return code_; }
  int http_status() const { return error_http_status(kind_); }

  // Extra response headers (Allow, Retry-After); WWW-Authenticate is added for 401 by
  // headers() itself so no call site can forget it.
  ApiError& with_header(std::string name, std::string value);
  std::vector<Header> headers() const;

  // The request field at fault ("messages[0].content"), for error shapes that name it
  // (OpenAI's `param`); empty when none is known.
  ApiError& with_param(std::string param) {
    param_ = std::move(param);
    return *this;
  }
  const std::string& param() const { return param_; }

 private:
  ErrorCode kind_;
  std::string code_;
  std::vector<Header> headers_;
  std::string param_;
};

// The one mapping from the domain's error kinds to the API's codes.
ApiError from_domain_error(const core::DomainError& error);

// {"error":{"code","message","request_id"}}, and "param" when the error names the field
// at fault (with_param).
nlohmann::json error_body(const ApiError& error, std::string_view request_id);

}  // namespace agentrt::server
