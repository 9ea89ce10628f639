// The calls a session leaves pending and the tool messages that answer them
// (docs/tools.md, "Continuing a session"): a run that ended with `tool_use` stores the
// model's calls as the last message of its session; the next run answers every one of
// them, in tool messages first among its messages, and answers nothing else.
#pragma once

#include "core/runs/history_span.h"
#include "core/runs/tool_spec.h"
#include "core/tools/server_calls.h"

#include <functional>

#include <vector>

namespace agentrt::core {

// The calls of the history's last assistant message that holds calls, when nothing but
// tool messages follows it, less those the tool messages answer.
std::vector<ToolCall> pending_calls(const HistorySpan& history);

// Whether a pending call waits for a person's approval (a server tool's) rather than
// for the caller's result (a client tool's).
using AwaitsApproval = std::function<bool(const ToolCall&)>;

// Refuses (400, naming the ids) `fresh` messages whose tool messages leave a pending
// call unanswered, answer a call that is not pending, answer one twice, or answer a
// call awaiting approval with a result, or a client's call with an approval.
void check_answers(const std::vector<ToolCall>& pending, const std::vector<StoredMessage>& fresh,
                   const AwaitsApproval& awaits_approval = {});

// A person's word on a pending call: run it, or give the model "denied: <reason>".
struct Approval {
  ToolCall call;
  bool approve = false;
  std::string reason;
};
// The tool_approval parts of `fresh`'s tool messages, for the `pending` calls they
// answer, in the order of those calls (check_answers has passed).
std::vector<Approval> approvals_in(const std::vector<ToolCall>& pending,
                                   const std::vector<StoredMessage>& fresh);

// A tool message of one tool_result part for each result, in order. Estimated.
StoredMessage results_message(const std::vector<ToolResult>& results);

// How many of `messages` lead as tool messages.
size_t leading_tool_messages(const std::vector<StoredMessage>& messages);

// The tool_call parts of a stored message's content.
std::vector<ToolCall> calls_in(const StoredMessage& message);

// The model's answer as the session keeps it: its text (when there is any), then its
// calls as tool_call parts. Estimated.
StoredMessage answer_message(std::string_view text, const std::vector<ToolCall>& calls);

}  // namespace agentrt::core
