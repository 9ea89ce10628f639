// The calls a session leaves pending and the tool messages that answer them
// (docs/tools.md, "Continuing a session"): a run that ended with `tool_use` stores the
// model's calls as the last message of its session; the next run answers every one of
// them, in tool messages first among its messages, and answers nothing else.
#pragma once

#include "core/runs/history_span.h"
#include "core/runs/tool_spec.h"

#include <vector>

namespace agentrt::core {

// The calls of the history's last assistant message that holds calls, when nothing but
// tool messages follows it, less those the tool messages answer.
std::vector<ToolCall> pending_calls(const HistorySpan& history);

// Refuses (400, naming the ids) `fresh` messages whose tool messages leave a pending
// call unanswered, answer a call that is not pending, or answer one twice.
void check_answers(const std::vector<ToolCall>& pending, const std::vector<StoredMessage>& fresh);

// The tool_call parts of a stored message's content.
std::vector<ToolCall> calls_in(const StoredMessage& message);

// The model's answer as the session keeps it: its text (when there is any), then its
// calls as tool_call parts. Estimated.
StoredMessage answer_message(std::string_view text, const std::vector<ToolCall>& calls);

}  // namespace agentrt::core
