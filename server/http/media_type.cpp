#include "server/http/media_type.h"

#include "server/http/ascii_case.h"

namespace agentrt::server {
namespace {

// Poco::Ascii::isSpace: the C locale's white space.
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

}  // namespace

bool is_json_media_type(std::string_view content_type) {
  size_t i = 0;
  while (i < content_type.size() && is_space(content_type[i])) ++i;
  const size_t slash = content_type.find('/', i);
  if (slash == std::string_view::npos) return false;  // the whole text is the type
  size_t end = slash + 1;
  while (end < content_type.size() && content_type[end] != ';' && !is_space(content_type[end]))
    ++end;
  return equals_ignoring_case(content_type.substr(i, slash - i), "application") &&
         equals_ignoring_case(content_type.substr(slash + 1, end - slash - 1), "json");
}

}  // namespace agentrt::server
