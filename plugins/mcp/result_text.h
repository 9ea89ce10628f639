// An MCP tools/call result as the text a model reads: text items joined by newlines,
// other content summarised in one bracketed line each, cut to the host's budget.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace agentrt::mcp {

struct ResultText {
  std::string text;
  bool is_error = false;
};

// Throws Error(UPSTREAM) when `result` is not a result object.
ResultText result_text(const nlohmann::json& result, size_t max_output_bytes);

// `text` cut to at most `max_bytes` in all, at a UTF-8 boundary, ending with a note
// saying so when anything was cut.
std::string cut_output(std::string text, size_t max_bytes);

}  // namespace agentrt::mcp
