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
// vendors require the first message to be the user's.
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

// A message's estimate: the one it was read from the store with, else its parsed
// content's (estimate_parsed_tokens). Inline: a run on a long session asks it of each of
// hundreds of stored messages.
int64_t estimate_parsed_tokens(const StoredMessage& message);
inline int64_t estimate_tokens(const StoredMessage& message) {
  return message.tokens >= 0 ? message.tokens : estimate_parsed_tokens(message);
}
// A content's estimate, without the message's framing, from its JSON text (an array of
// parts), read without building it.
int64_t estimate_content_tokens(std::string_view content_json);
int64_t estimate_text_tokens(const std::string& text);
// A stored message's estimate (StoredMessage::tokens) from its content's JSON text.
int64_t estimate_stored_tokens(std::string_view content_json);
// The same into `message.tokens`, with `message.has_image`, from its content_text.
void estimate_stored(StoredMessage& message);

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
