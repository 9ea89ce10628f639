// Turns an upstream's HTTP failure into the ABI error the engine decides on: whether
// to retry (UNAVAILABLE, with the delay the upstream asked for), or to give up
// (UNAUTHENTICATED, PERMISSION, UPSTREAM).
#pragma once

#include "common/http_response.h"

#include <agentrt/plugin.hpp>

#include <ctime>
#include <string>
#include <string_view>

namespace agentrt::providers {

// What a vendor's error body said, as each plugin's error parser extracts it.
struct UpstreamErrorInfo {
  std::string message;           // human text, may be empty
  std::string type;              // vendor's error type or code, may be empty
  bool quota_exhausted = false;  // a 429 that waiting will not fix
};

// The error for a non-2xx `response`. `secret` (the API key, may be empty) is
// removed from every text taken from the upstream.
sdk::Error map_http_error(const HttpResponse& response, const UpstreamErrorInfo& info,
                          std::string_view secret, std::time_t now);

// `text` with every occurrence of `secret` replaced by "[redacted]", and so every word
// that tells part of it: a masked quote sharing its first 3 or last 4 characters, or a
// piece of 8 characters or more.
std::string redact(std::string text, std::string_view secret);

// `error` with every occurrence of `secret` in its message replaced: the last line of
// defence, so that whatever any layer put in a message, the key leaves only as
// "[redacted]".
sdk::Error redact(const sdk::Error& error, std::string_view secret);

// `text` cut to at most `max_bytes` without splitting a UTF-8 character.
std::string clip_utf8(std::string text, size_t max_bytes);

// The upstream's own words, made safe for an error message: redacted and clipped.
std::string upstream_text(const UpstreamErrorInfo& info, std::string_view secret);

}  // namespace agentrt::providers
