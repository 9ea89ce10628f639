#include "server/http/token_shapes.h"

namespace agentrt::server {
namespace {

constexpr std::string_view kPrefix = "art_";
constexpr size_t kIdLength = 16;

bool in_token_alphabet(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

}  // namespace

std::string_view redact_token_shapes(std::string_view text, std::string& scratch) {
  size_t found = text.find(kPrefix);
  if (found == std::string_view::npos) return text;
  scratch.clear();
  size_t copied = 0;
  for (; found != std::string_view::npos; found = text.find(kPrefix, found)) {
    size_t end = found + kPrefix.size();
    while (end < text.size() && in_token_alphabet(text[end])) ++end;
    if (end - found - kPrefix.size() > kIdLength) {
      scratch.append(text.substr(copied, found - copied)).append("art_[redacted]");
      copied = end;
    }
    found = end;
  }
  if (copied == 0) return text;
  scratch.append(text.substr(copied));
  return scratch;
}

}  // namespace agentrt::server
