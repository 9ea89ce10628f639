#include "core/runs/context_window.h"

#include "core/domain/errors.h"
#include "core/domain/json_text.h"
#include "text/json_reader.h"

#include <algorithm>
#include <stdexcept>

namespace agentrt::core {
namespace {

constexpr const char* kMemoryHeading = "\n\nWhat you remember (newest first within each kind):";

std::string memory_line(const MemoryItem& item) {
  return "\n- (" + item.layer + ") " + item.content;
}

// The bytes a text counts for: its own, and one more for each character of three bytes
// (Chinese, Japanese, Korean and most symbols). Tokenizers such as cl100k_base give such
// characters about a token each, where 4 bytes a token gave them three quarters, and a
// session in Chinese filled a window past the model's limit (docs/operator-guide.md).
size_t weighted_bytes(std::string_view text) {
  size_t three_byte_leads = 0;
  for (const char c : text) three_byte_leads += (static_cast<unsigned char>(c) & 0xF0) == 0xE0;
  return text.size() + three_byte_leads;
}

int64_t text_tokens(std::string_view text) {
  return static_cast<int64_t>((weighted_bytes(text) + 3) / 4);
}

// How many of the history's last messages the new ones need: when they answer tool
// calls, the turn that made them, from its user message on (the whole history when it
// has none).
size_t answered_turn(const HistorySpan& history, const std::vector<StoredMessage>& fresh) {
  if (fresh.empty() || fresh.front().role != "tool") return 0;
  size_t first = history.size();
  while (first > 0 && history[first - 1].role != "user") --first;
  return history.size() - (first > 0 ? first - 1 : 0);
}

}  // namespace

void ContentEstimate::add_text(std::string_view text) {
  tokens_ += text_tokens(text);
}

void ContentEstimate::add_other(bool image) {
  tokens_ += kImageTokens;
  has_image_ = has_image_ || image;
}

void ContentEstimate::add_tool(std::string_view text) {
  tokens_ += kFraming + text_tokens(text);
  has_tool_parts_ = true;
}

int64_t estimate_text_tokens(const std::string& text) {
  return text_tokens(text);
}

void estimate_stored(StoredMessage& message) {
  text::JsonReader reader;
  simdjson::dom::array parts;
  if (reader.parse(message.content_text).get(parts) != simdjson::SUCCESS)
    throw std::runtime_error("a stored message's content is not a JSON array");
  ContentEstimate estimate;
  for (const simdjson::dom::element part : parts) {
    const std::string_view type = text::text_or_empty(text::member(part, "type"));
    if (type == "text") {
      estimate.add_text(text::text_or_empty(text::member(part, "text")));
    } else if (type == "tool_call") {
      estimate.add_tool(text::text_or_empty(text::member(part, "name")));
      estimate.add_text(text::text_or_empty(text::member(part, "arguments")));
    } else if (type == "tool_result") {
      estimate.add_tool(text::text_or_empty(text::member(part, "output")));
    } else if (type == "tool_approval") {
      estimate.add_tool(text::text_or_empty(text::member(part, "reason")));
    } else {
      estimate.add_other(type == "image_url");
    }
  }
  message.tokens = estimate.tokens();
  message.has_image = estimate.has_image();
  message.has_tool_parts = estimate.has_tool_parts();
}

StoredMessage text_message(std::string role, std::string_view text) {
  StoredMessage message;
  message.role = std::move(role);
  std::string content = "[";
  append_text_part(content, text);
  content += ']';
  message.content_text = std::move(content);
  ContentEstimate estimate;
  estimate.add_text(text);
  message.tokens = estimate.tokens();
  return message;
}

const StoredMessage& RunContext::operator[](size_t i) const {
  if (i < system.size()) return system[i];
  i -= system.size();
  return i < history.size() ? history[i] : fresh[i - history.size()];
}

int64_t answer_reserve(int64_t context_window, std::optional<int64_t> max_tokens) {
  return max_tokens ? *max_tokens : std::min<int64_t>(4096, context_window / 4);
}

RunContext assemble_context(ContextParts parts, int64_t context_window,
                            std::optional<int64_t> max_tokens) {
  const int64_t budget = context_window - max_tokens.value_or(0);
  int64_t used = parts.tool_tokens;
  for (const auto& m : parts.fresh) used += estimate_tokens(m);
  const size_t must = answered_turn(parts.history, parts.fresh);
  for (size_t i = parts.history.size() - must; i < parts.history.size(); ++i)
    used += estimate_tokens(parts.history[i]);
  if (!parts.system_prompt.empty()) used += kFraming + estimate_text_tokens(parts.system_prompt);
  if (used > budget)
    throw invalid("field 'messages' needs about " + std::to_string(used) + " tokens" +
                  (parts.system_prompt.empty() ? "" : " with the system prompt") +
                  (must == 0 ? "" : " and the calls it answers") +
                  (parts.tool_tokens == 0 ? "" : " and the tools") +
                  ", more than the model's context window of " + std::to_string(context_window) +
                  (max_tokens ? " less max_tokens " + std::to_string(*max_tokens) : std::string()));
  // What memory and history may fill: less than the budget when the request named no
  // max_tokens, so that the answer has room.
  const int64_t room = context_window - answer_reserve(context_window, max_tokens);

  std::string system = parts.system_prompt;
  bool heading = false;
  for (const MemoryItem& item : parts.memory) {
    std::string line = memory_line(item);
    int64_t cost = estimate_text_tokens(line) +
                   (heading ? 0 : estimate_text_tokens(kMemoryHeading)) +
                   (system.empty() ? kFraming : 0);
    if (used + cost > room) continue;  // a shorter, lower-priority item may still fit
    if (!heading) system += kMemoryHeading;
    heading = true;
    system += line;
    used += cost;
  }

  // Newest first, each message's estimate taken once.
  const StoredMessage* kept = parts.history.end() - must;
  for (; kept != parts.history.begin(); --kept) {
    const int64_t tokens = estimate_tokens(kept[-1]);
    if (used + tokens > room) break;
    used += tokens;
  }
  size_t first = static_cast<size_t>(kept - parts.history.begin());
  while (first < parts.history.size() - must &&
         (parts.history[first].role == "assistant" || parts.history[first].role == "tool"))
    ++first;

  RunContext out;
  if (!system.empty()) {
    // The memory heading opens the message when there is no prompt before it.
    if (parts.system_prompt.empty()) system.erase(0, 2);
    out.system.push_back(text_message("system", system));
  }
  out.history = parts.history.without_first(first);
  out.fresh = std::move(parts.fresh);
  return out;
}

std::vector<StoredMessage> recent_history(const SessionStore& sessions, const std::string& cell,
                                          const std::string& session, int64_t context_window) {
  std::vector<StoredMessage> recent;
  int64_t tokens = 0;
  sessions.history_newest_first(cell, session, [&](StoredMessage&& message) {
    estimate_stored(message);
    tokens += message.tokens;
    recent.push_back(std::move(message));
    return tokens <= context_window;
  });
  std::reverse(recent.begin(), recent.end());
  return recent;
}

RunContext fit_context(const std::vector<StoredMessage>& history,
                       const std::vector<StoredMessage>& fresh, int64_t context_window,
                       std::optional<int64_t> max_tokens) {
  return assemble_context({"", {}, history, fresh}, context_window, max_tokens);
}

}  // namespace agentrt::core
