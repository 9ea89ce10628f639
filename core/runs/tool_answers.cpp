#include "core/runs/tool_answers.h"

#include "core/domain/errors.h"
#include "core/domain/json_text.h"
#include "core/runs/context_window.h"
#include "text/json_reader.h"

#include <algorithm>
#include <functional>
#include <string_view>

namespace agentrt::core {
namespace {

using simdjson::SUCCESS;

// Hands each part of `message` whose type is `type` to `take`.
void each_part(const StoredMessage& message, std::string_view type,
               const std::function<void(simdjson::dom::element)>& take) {
  text::JsonReader reader;
  simdjson::dom::array parts;
  if (reader.parse(message.content_text.str()).get(parts) != SUCCESS) return;
  for (const simdjson::dom::element part : parts)
    if (text::text_or_empty(text::member(part, "type")) == type) take(part);
}

// The ids the tool_result and tool_approval parts of a tool message answer.
std::vector<std::string> answered_in(const StoredMessage& message) {
  std::vector<std::string> ids;
  auto take = [&](simdjson::dom::element part) {
    ids.emplace_back(text::text_or_empty(text::member(part, "tool_call_id")));
  };
  each_part(message, "tool_result", take);
  each_part(message, "tool_approval", take);
  return ids;
}

bool contains(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

std::string listed(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) out += (out.empty() ? "'" : ", '") + id + "'";
  return out;
}

}  // namespace

std::vector<ToolCall> calls_in(const StoredMessage& message) {
  std::vector<ToolCall> calls;
  if (!message.has_tool_parts) return calls;
  each_part(message, "tool_call", [&](simdjson::dom::element part) {
    calls.push_back({std::string(text::text_or_empty(text::member(part, "id"))),
                     std::string(text::text_or_empty(text::member(part, "name"))),
                     std::string(text::text_or_empty(text::member(part, "arguments")))});
  });
  return calls;
}

std::vector<ToolCall> pending_calls(const HistorySpan& history) {
  std::vector<std::string> answered;
  size_t i = history.size();
  for (; i > 0 && history[i - 1].role == "tool"; --i)
    for (std::string& id : answered_in(history[i - 1])) answered.push_back(std::move(id));
  if (i == 0 || history[i - 1].role != "assistant") return {};
  std::vector<ToolCall> pending = calls_in(history[i - 1]);
  pending.erase(std::remove_if(pending.begin(), pending.end(),
                               [&](const ToolCall& call) { return contains(answered, call.id); }),
                pending.end());
  return pending;
}

namespace {

struct AnswerKinds {
  std::vector<std::string> answers, twice, results, approvals;
};

AnswerKinds answers_in(const std::vector<StoredMessage>& fresh) {
  AnswerKinds kinds;
  for (const StoredMessage& message : fresh) {
    if (message.role != "tool") break;
    each_part(message, "tool_approval", [&](simdjson::dom::element part) {
      kinds.approvals.emplace_back(text::text_or_empty(text::member(part, "tool_call_id")));
    });
    each_part(message, "tool_result", [&](simdjson::dom::element part) {
      kinds.results.emplace_back(text::text_or_empty(text::member(part, "tool_call_id")));
    });
    for (std::string& id : answered_in(message)) {
      if (contains(kinds.answers, id) && !contains(kinds.twice, id)) kinds.twice.push_back(id);
      kinds.answers.push_back(std::move(id));
    }
  }
  return kinds;
}

// The pending calls answered the wrong way: a client's with an approval, or one awaiting
// approval with a result.
void check_answer_kinds(const std::vector<ToolCall>& pending, const AnswerKinds& kinds,
                        const AwaitsApproval& awaits_approval) {
  std::vector<std::string> approved_client, resulted_server;
  for (const ToolCall& call : pending) {
    const bool server = awaits_approval && awaits_approval(call);
    if (!server && contains(kinds.approvals, call.id)) approved_client.push_back(call.id);
    if (server && contains(kinds.results, call.id)) resulted_server.push_back(call.id);
  }
  if (!approved_client.empty())
    throw invalid("field 'messages': tool call " + listed(approved_client) +
                  " awaits no approval: a client tool's call is answered with a tool_result");
  if (!resulted_server.empty())
    throw invalid("field 'messages': tool call " + listed(resulted_server) +
                  " awaits approval: agentrt runs it, and it is answered with a tool_approval");
}

}  // namespace

void check_answers(const std::vector<ToolCall>& pending, const std::vector<StoredMessage>& fresh,
                   const AwaitsApproval& awaits_approval) {
  const AnswerKinds kinds = answers_in(fresh);
  std::vector<std::string> unknown, missing;
  for (const std::string& id : kinds.answers) {
    const bool is_pending = std::any_of(pending.begin(), pending.end(),
                                        [&](const ToolCall& call) { return call.id == id; });
    if (!is_pending && !contains(unknown, id)) unknown.push_back(id);
  }
  for (const ToolCall& call : pending)
    if (!contains(kinds.answers, call.id)) missing.push_back(call.id);
  if (!kinds.twice.empty())
    throw invalid("field 'messages': tool call " + listed(kinds.twice) + " is answered twice");
  if (!unknown.empty())
    throw invalid("field 'messages': tool call " + listed(unknown) +
                  (pending.empty() ? " is not pending: the session has no pending tool calls"
                                   : " is not pending on this session"));
  check_answer_kinds(pending, kinds, awaits_approval);
  if (!missing.empty())
    throw invalid("field 'messages': the session's pending tool call " + listed(missing) +
                  " needs a tool_result (or, awaiting approval, a tool_approval) in a tool "
                  "message first among messages");
}

std::vector<Approval> approvals_in(const std::vector<ToolCall>& pending,
                                   const std::vector<StoredMessage>& fresh) {
  std::vector<Approval> approvals;
  for (const StoredMessage& message : fresh) {
    if (message.role != "tool") break;
    each_part(message, "tool_approval", [&](simdjson::dom::element part) {
      const std::string_view id = text::text_or_empty(text::member(part, "tool_call_id"));
      for (const ToolCall& call : pending) {
        if (call.id != id) continue;
        bool approve = false;
        if (text::member(part, "approve").get(approve) != SUCCESS) approve = false;
        approvals.push_back(
            {call, approve, std::string(text::text_or_empty(text::member(part, "reason")))});
      }
    });
  }
  std::stable_sort(approvals.begin(), approvals.end(), [&](const Approval& a, const Approval& b) {
    auto at = [&](const Approval& x) {
      return std::find_if(pending.begin(), pending.end(),
                          [&](const ToolCall& c) { return c.id == x.call.id; });
    };
    return at(a) < at(b);
  });
  return approvals;
}

StoredMessage results_message(const std::vector<ToolResult>& results) {
  StoredMessage message;
  message.role = "tool";
  ContentEstimate estimate;
  std::string content = "[";
  for (const ToolResult& result : results) {
    if (content.size() > 1) content += ',';
    JsonObjectText part(content);
    part.boolean("is_error", result.is_error)
        .string("output", result.output)
        .string("tool_call_id", result.call_id)
        .string("type", "tool_result")
        .close();
    estimate.add_tool(result.output);
  }
  content += ']';
  message.content_text = std::move(content);
  message.tokens = estimate.tokens();
  message.has_tool_parts = true;
  return message;
}

size_t leading_tool_messages(const std::vector<StoredMessage>& messages) {
  size_t n = 0;
  while (n < messages.size() && messages[n].role == "tool") ++n;
  return n;
}

StoredMessage answer_message(std::string_view text, const std::vector<ToolCall>& calls) {
  if (calls.empty()) return text_message("assistant", text);
  StoredMessage message;
  message.role = "assistant";
  ContentEstimate estimate;
  std::string content = "[";
  if (!text.empty()) {
    append_text_part(content, text);
    estimate.add_text(text);
  }
  for (const ToolCall& call : calls) {
    if (content.size() > 1) content += ',';
    JsonObjectText part(content);
    part.string("arguments", call.arguments)
        .string("id", call.id)
        .string("name", call.name)
        .string("type", "tool_call")
        .close();
    estimate.add_tool(call.name);
    estimate.add_text(call.arguments);
  }
  content += ']';
  message.content_text = std::move(content);
  message.tokens = estimate.tokens();
  message.has_tool_parts = true;
  return message;
}

}  // namespace agentrt::core
