// The tool fields of a run request and of an agent (docs/tools.md), read with the run
// request's reader and refused with its words: every refusal is a 400 naming the field.
#pragma once

#include "core/runs/context_window.h"
#include "core/runs/run_request_fields.h"
#include "core/runs/tool_spec.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::core {

// At most this many tools a run (OpenAI's limit, the lowest of the vendors').
inline constexpr size_t kMaxTools = 128;

// One client tool, `where` naming it ("tools[2]").
ToolSpec read_tool(simdjson::dom::element value, const std::string& where);
// `value`, the array named `field` ("tools", "agents.tools"): client tools, each
// {"type":"function","name","description"?,"parameters"?}, names unique.
std::vector<ToolSpec> read_tools(simdjson::dom::element value, const std::string& field);
// The same from JSON text (an agent's, read with nlohmann first).
std::vector<ToolSpec> read_tools_text(std::string_view json, const std::string& field);
// The "tool_choice" field's value.
ToolChoice read_tool_choice(simdjson::dom::element value);
// "max_steps": 1 to 64.
std::optional<int64_t> read_max_steps(const Fields& body, const std::string& field);

// A tool part of message `role` (tool_call, tool_result, tool_approval), appended to
// `content` in the store's form (keys sorted) and to its estimate. False when `type` is
// not a tool part's; throws when the part is wrong or does not belong in `role`.
bool read_tool_part(std::string_view type, const Fields& part, const std::string& where,
                    std::string_view role, std::string& content, ContentEstimate& estimate);

// Tool messages come first among a request's messages, and only there (they answer the
// calls the session left pending).
void check_tool_message_order(const std::vector<StoredMessage>& messages);

// Tools as JSON: [{"description"?,"name","parameters","type":"function"}].
std::string tools_json(const std::vector<ToolSpec>& tools);

}  // namespace agentrt::core
