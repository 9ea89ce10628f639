#include "server/http/api_error.h"

#include "core/domain/errors.h"

#include <gtest/gtest.h>

namespace agentrt::server {
namespace {

TEST(ApiError, EveryCodeHasItsDocumentedStatus) {
  const std::vector<std::tuple<ErrorCode, std::string, int>> table = {
      {ErrorCode::invalid_request, "invalid_request", 400},
      {ErrorCode::unauthorized, "unauthorized", 401},
      {ErrorCode::forbidden, "forbidden", 403},
      {ErrorCode::not_found, "not_found", 404},
      {ErrorCode::method_not_allowed, "method_not_allowed", 405},
      {ErrorCode::conflict, "conflict", 409},
      {ErrorCode::payload_too_large, "payload_too_large", 413},
      {ErrorCode::unsupported_media_type, "unsupported_media_type", 415},
      {ErrorCode::rate_limited, "rate_limited", 429},
      {ErrorCode::internal, "internal", 500},
      {ErrorCode::provider_error, "provider_error", 502},
      {ErrorCode::provider_unavailable, "provider_unavailable", 503},
      {ErrorCode::provider_timeout, "provider_timeout", 504},
  };
  for (const auto& [code, name, status] : table) {
    EXPECT_EQ(error_code_name(code), name);
    EXPECT_EQ(error_http_status(code), status) << name;
    const ApiError error(code, "m");
    EXPECT_EQ(error.code(), name);
    EXPECT_EQ(error.http_status(), status);
  }
}

TEST(ApiError, BodyHasExactlyTheDocumentedShape) {
  const ApiError error(ErrorCode::not_found, "no such thing");
  const nlohmann::json expected = {
      {"error", {{"code", "not_found"}, {"message", "no such thing"}, {"request_id", "r1"}}}};
  EXPECT_EQ(error_body(error, "r1"), expected);
}

TEST(ApiError, UnauthorizedAlwaysCarriesWwwAuthenticate) {
  const auto headers = ApiError(ErrorCode::unauthorized, "no token").headers();
  ASSERT_EQ(headers.size(), 1u);
  EXPECT_EQ(headers[0], (ApiError::Header{"WWW-Authenticate", "Bearer"}));
  EXPECT_TRUE(ApiError(ErrorCode::forbidden, "no").headers().empty());
}

TEST(ApiError, SpecificCodeKeepsTheStatusOfItsKind) {
  ApiError busy(ErrorCode::conflict, "session_busy", "the session is running");
  busy.with_header("Retry-After", "1");
  EXPECT_EQ(busy.code(), "session_busy");
  EXPECT_EQ(busy.http_status(), 409);
  EXPECT_EQ(busy.headers(), (std::vector<ApiError::Header>{{"Retry-After", "1"}}));
  EXPECT_EQ(error_body(busy, "r")["error"]["code"], "session_busy");
}

// A store busy past its wait: the same request may well succeed later, and the client is
// told when to try, as for a shutdown.
TEST(ApiError, AnEngineDependencyThatCannotServeSaysWhenToTryAgain) {
  const ApiError error =
      from_domain_error(core::DomainError(core::ErrorKind::unavailable, "the store is busy"));
  EXPECT_EQ(error.code(), "unavailable");
  EXPECT_EQ(error.http_status(), 503);
  EXPECT_EQ(error.headers(), (std::vector<ApiError::Header>{{"Retry-After", "1"}}));
}

}  // namespace
}  // namespace agentrt::server
