// What goes upstream, within the model's context window. Tokens are estimated, not
// counted: 4 bytes of text a token (rounded up), a character of three bytes counting as
// four, 256 tokens an image, and 4 tokens a message for role and framing.
//
// Assembly order: the agent's system prompt and the memory the run may see (one system
// message), then the session's history, then the new messages. The system prompt and the
// new messages always go (400 when they alone do not fit). What else fits the window
// less the answer's reserve (max_tokens) is kept in this priority, so the first to be
// dropped is the last here:
//   1. agent_memory entries   2. about_me   3. consensus   4. session memory
//   5. environment (newest first within each layer)
//   6. history, newest turn first (the oldest turns go first)
// A history that would start with an assistant turn loses that turn too, since some
// vendors require the first message to be the user's; tool messages alike. When the new
// messages answer tool calls, the turn that made the calls (from its user message on)
// always goes with them: every vendor refuses a result whose call it was not sent.
#pragma once

#include "core/runs/history_span.h"
#include "core/sessions/session_store.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::core {

struct MemoryItem {
  std::string layer, content;
};

struct ContextParts {
  std::string system_prompt;
  std::vector<MemoryItem> memory;  // in priority order, see above
  HistorySpan history;
  std::vector<StoredMessage> fresh;
  // The estimate of the tool definitions the run sends, which take room as the new
  // messages do.
  int64_t tool_tokens = 0;
};

// What goes upstream, in order: the system message (when there is one), the history
// kept, the new messages.
struct RunContext {
  std::vector<StoredMessage> system;  // none or one
  HistorySpan history;
  std::vector<StoredMessage> fresh;

  size_t size() const { return system.size() + history.size() + fresh.size(); }
  const StoredMessage& operator[](size_t i) const;
  template <typename F>
  void each(F&& f) const {
    for (const StoredMessage& m : system) f(m);
    for (const StoredMessage& m : history) f(m);
    for (const StoredMessage& m : fresh) f(m);
  }
};

// One message's estimate, built part by part as its content is read: the framing, each
// text part's, and 256 for any other part (an image).
inline constexpr int64_t kFraming = 4;
inline constexpr int64_t kImageTokens = 256;
class ContentEstimate {
 public:
  void add_text(std::string_view text);
  // A part that is not text; `image` when it is an image_url.
  void add_other(bool image);
  // A tool part, counted as its `text` (a call's name and arguments, a result's output).
  void add_tool(std::string_view text);
  int64_t tokens() const { return tokens_; }
  bool has_image() const { return has_image_; }
  bool has_tool_parts() const { return has_tool_parts_; }

 private:
  int64_t tokens_ = kFraming;
  bool has_image_ = false;
  bool has_tool_parts_ = false;
};

// Every message is estimated when it is made or read (StoredMessage::tokens).
inline int64_t estimate_tokens(const StoredMessage& message) {
  return message.tokens;
}
int64_t estimate_text_tokens(const std::string& text);
// Sets `message.tokens` and `message.has_image` from its content_text. Throws
// std::runtime_error when that is not a JSON array.
void estimate_stored(StoredMessage& message);
// A message of one text part, estimated.
StoredMessage text_message(std::string role, std::string_view text);

// The room kept in the window for the answer: `max_tokens` when the request names it,
// else a quarter of the window, at most 4096. Vendors count the answer against the same
// window as the input (Anthropic asks every request for max_tokens, and the bundled
// plugin sends 4096 when the request has none), so a context filled to the window left
// the answer no room, and a long session failed at the vendor with every run.
int64_t answer_reserve(int64_t context_window, std::optional<int64_t> max_tokens);

// `parts` by value: the history kept goes into the context as the span it is, not
// copied (a run on a long session has hundreds of messages in it). `max_tokens`, the
// request's: the new messages and the prompt must fit the window less it (400 else);
// memory and history fill the window less answer_reserve.
RunContext assemble_context(ContextParts parts, int64_t context_window,
                            std::optional<int64_t> max_tokens);

// The newest part of a session's history that a context of `context_window` tokens can
// hold any of, oldest first, as stored (StoredMessage::content_text, with its tokens).
// Read newest first, it stops once the messages read pass the window on their own:
// assemble_context keeps the newest messages that fit, so nothing older could be kept.
// A run on a long session then reads what fits, not every message the session had.
std::vector<StoredMessage> recent_history(const SessionStore& sessions, const std::string& cell,
                                          const std::string& session, int64_t context_window);

// History and new messages only.
RunContext fit_context(const std::vector<StoredMessage>& history,
                       const std::vector<StoredMessage>& fresh, int64_t context_window,
                       std::optional<int64_t> max_tokens);

}  // namespace agentrt::core
