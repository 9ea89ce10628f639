#include "server/http/api_error.h"

#include "server/http/token_shapes.h"

namespace agentrt::server {

namespace {

struct ErrorInfo {
  const char* name;
  int status;
};

ErrorInfo info(ErrorCode code) {
  switch (code) {
    case ErrorCode::invalid_request:
      return {"invalid_request", 400};
    case ErrorCode::unauthorized:
      return {"unauthorized", 401};
    case ErrorCode::forbidden:
      return {"forbidden", 403};
    case ErrorCode::not_found:
      return {"not_found", 404};
    case ErrorCode::method_not_allowed:
      return {"method_not_allowed", 405};
    case ErrorCode::conflict:
      return {"conflict", 409};
    case ErrorCode::payload_too_large:
      return {"payload_too_large", 413};
    case ErrorCode::unsupported_media_type:
      return {"unsupported_media_type", 415};
    case ErrorCode::rate_limited:
      return {"rate_limited", 429};
    case ErrorCode::internal:
      return {"internal", 500};
    case ErrorCode::provider_error:
      return {"provider_error", 502};
    case ErrorCode::provider_unavailable:
      return {"provider_unavailable", 503};
    case ErrorCode::provider_timeout:
      return {"provider_timeout", 504};
  }
  return {"internal", 500};  // unreachable for valid enum values; keeps -Wreturn-type quiet
}

}  // namespace

const char* error_code_name(ErrorCode code) {
  return info(code).name;
}
int error_http_status(ErrorCode code) {
  return info(code).status;
}

ApiError::ApiError(ErrorCode kind, const std::string& message)
    : ApiError(kind, error_code_name(kind), message) {}

ApiError::ApiError(ErrorCode kind, std::string code, const std::string& message)
    : std::runtime_error(message), kind_(kind), code_(std::move(code)) {}

ApiError& ApiError::with_header(std::string name, std::string value) {
  headers_.emplace_back(std::move(name), std::move(value));
  return *this;
}

std::vector<ApiError::Header> ApiError::headers() const {
  std::vector<Header> all = headers_;
  if (kind_ == ErrorCode::unauthorized) all.emplace_back("WWW-Authenticate", "Bearer");
  return all;
}

// Messages name what the request named (a path, an id), which may be a token the client
// pasted there: it goes back redacted, as to the log.
// A refusal that names the field at fault says which in `param` too, for programs.
nlohmann::json error_body(const ApiError& error, std::string_view request_id) {
  std::string scratch;
  const std::string_view message = redact_token_shapes(error.what(), scratch);
  nlohmann::json body = {
      {"error", {{"code", error.code()}, {"message", message}, {"request_id", request_id}}}};
  if (!error.param().empty()) body["error"]["param"] = error.param();
  return body;
}

ApiError from_domain_error(const core::DomainError& error) {
  ErrorCode code = ErrorCode::internal;
  switch (error.kind()) {
    case core::ErrorKind::invalid:
      code = ErrorCode::invalid_request;
      break;
    case core::ErrorKind::unauthorized:
      code = ErrorCode::unauthorized;
      break;
    case core::ErrorKind::forbidden:
      code = ErrorCode::forbidden;
      break;
    case core::ErrorKind::not_found:
      code = ErrorCode::not_found;
      break;
    case core::ErrorKind::conflict:
      code = ErrorCode::conflict;
      break;
    case core::ErrorKind::rate_limited:
      code = ErrorCode::rate_limited;
      break;
    case core::ErrorKind::unavailable:
      // A dependency of the engine (a plugin, storage) cannot serve right now: a store
      // busy past its wait, most often, which the same request may find free again.
      return ApiError(ErrorCode::provider_unavailable, "unavailable", error.what())
          .with_header("Retry-After", "1");
    case core::ErrorKind::provider_error:
      code = ErrorCode::provider_error;
      break;
    case core::ErrorKind::provider_unavailable:
      code = ErrorCode::provider_unavailable;
      break;
    case core::ErrorKind::provider_timeout:
      code = ErrorCode::provider_timeout;
      break;
    case core::ErrorKind::internal:
      return ApiError(ErrorCode::internal, "internal error");
  }
  ApiError api = error.code().empty() ? ApiError(code, error.what())
                                      : ApiError(code, error.code(), error.what());
  // A provider's hint (a 429 whose Retry-After was too long to wait for here).
  if (error.retry_after_s() > 0)
    api.with_header("Retry-After", std::to_string(error.retry_after_s()));
  return api;
}

}  // namespace agentrt::server
