#include "common/error_mapping.h"

#include "text/utf8.h"

#include "common/retry_after.h"

#include <algorithm>
#include <cctype>

namespace agentrt::providers {
namespace {

// The error struct holds 512 bytes; leave room for our own words around the vendor's.
constexpr size_t kMaxUpstreamText = 360;

// Statuses that mean "busy or down, try later": rate limits, server faults, gateway
// trouble and Anthropic's 529 "overloaded".
bool retryable_status(long status) {
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504 ||
         status == 529;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string with_detail(std::string head, const std::string& detail) {
  return detail.empty() ? head : head + ": " + detail;
}

constexpr std::string_view kMark = "[redacted]";

bool in_word(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '*';
}

// A word of an upstream's message that tells part of the key: a masked quote of it
// ("sk-proj-****1234", as OpenAI's 401 writes it) or a piece of it of 8 characters or
// more. Such a fingerprint is for the key's owner, not for every actor whose run
// failed.
bool key_fragment(std::string_view word, std::string_view secret) {
  if (word.find('*') != std::string_view::npos) {
    const bool head = word.size() >= 3 && secret.substr(0, 3) == word.substr(0, 3);
    const bool tail = word.size() >= 4 && secret.size() >= 4 &&
                      secret.substr(secret.size() - 4) == word.substr(word.size() - 4);
    return head || tail;
  }
  return word.size() >= 8 && secret.find(word) != std::string_view::npos;
}

std::string redact_fragments(const std::string& text, std::string_view secret) {
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    if (!in_word(text[at])) {
      out += text[at++];
      continue;
    }
    size_t end = at;
    while (end < text.size() && in_word(text[end])) ++end;
    const std::string_view word(text.data() + at, end - at);
    if (key_fragment(word, secret))
      out += kMark;
    else
      out += word;
    at = end;
  }
  return out;
}

}  // namespace

std::string redact(std::string text, std::string_view secret) {
  if (secret.empty()) return text;
  for (size_t at = text.find(secret); at != std::string::npos;
       at = text.find(secret, at + kMark.size())) {
    text.replace(at, secret.size(), kMark);
  }
  return redact_fragments(text, secret);
}

sdk::Error redact(const sdk::Error& error, std::string_view secret) {
  return sdk::Error(error.code(), redact(error.what(), secret), error.http_status(),
                    error.retry_after_ms());
}

std::string clip_utf8(std::string text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  text.resize(text::utf8_prefix(text, max_bytes).size());
  return text + "...";
}

std::string upstream_text(const UpstreamErrorInfo& info, std::string_view secret) {
  std::string text = info.message.empty() ? info.type : info.message;
  // Redact before clipping, so a key cut in half by the clip cannot survive.
  return clip_utf8(redact(std::move(text), secret), kMaxUpstreamText);
}

sdk::Error map_http_error(const HttpResponse& response, const UpstreamErrorInfo& info,
                          std::string_view secret, std::time_t now) {
  const int32_t status = static_cast<int32_t>(response.status);
  const std::string code = "(HTTP " + std::to_string(status) + ")";
  const std::string detail = upstream_text(info, secret);
  const uint32_t wait_ms =
      retry_after_ms(response.header("retry-after-ms"), response.header("retry-after"), now);

  if (status == 401)
    return sdk::Error(AGENTRT_ERR_UNAUTHENTICATED,
                      with_detail("upstream refused the credentials " + code, detail), status);
  if (status == 403)
    return sdk::Error(AGENTRT_ERR_PERMISSION,
                      with_detail("upstream refused the credentials " + code, detail), status);
  if (info.quota_exhausted)
    return sdk::Error(AGENTRT_ERR_UPSTREAM, with_detail("upstream quota exhausted " + code, detail),
                      status, wait_ms);

  // The vendors' own SDKs let `x-should-retry` override the status either way.
  bool retry = retryable_status(status);
  std::string should_retry = lower(response.header("x-should-retry"));
  if (should_retry == "true") retry = true;
  if (should_retry == "false") retry = false;
  if (retry)
    return sdk::Error(AGENTRT_ERR_UNAVAILABLE, with_detail("upstream unavailable " + code, detail),
                      status, wait_ms);
  return sdk::Error(AGENTRT_ERR_UPSTREAM,
                    with_detail("upstream rejected the request " + code, detail), status, wait_ms);
}

}  // namespace agentrt::providers
