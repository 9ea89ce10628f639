#include "server/http/json_body.h"

#include "server/http/api_error.h"

#include <algorithm>

namespace agentrt::server {
namespace {

// The position of a parse error as people count it; never the bytes themselves, which
// may hold a secret the client meant for a provider.
std::string describe_position(const std::string& text, std::size_t byte) {
  const std::size_t offset = byte == 0 ? 0 : std::min(byte - 1, text.size());
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + " (byte " +
         std::to_string(offset + 1) + ")";
}

}  // namespace

nlohmann::json parse_json_body(const std::string& body) {
  if (body.empty())
    throw ApiError(ErrorCode::invalid_request, "request body is empty; expected JSON");
  try {
    return nlohmann::json::parse(body);
  } catch (const nlohmann::json::parse_error& e) {
    throw ApiError(ErrorCode::invalid_request,
                   "request body is not valid JSON: error at " + describe_position(body, e.byte));
  }
}

}  // namespace agentrt::server
