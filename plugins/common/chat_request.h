// The engine's completion request, parsed once and checked, so that each vendor's
// translation works from a typed value instead of re-validating JSON. Its texts stay
// escaped (EscapedText) and, read from the engine's JSON, borrow that JSON: a
// ChatRequest is valid only while the text it was read from is.
#pragma once

#include "common/escaped_text.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::providers {

struct ContentPart {
  enum class Kind { text, image };
  Kind kind = Kind::text;
  EscapedText text;  // Kind::text
  std::string url;   // Kind::image: https://... or data:<media type>;base64,...
};

// A message's parts: a view of its request's one vector of parts. A vector of each
// message's own cost an allocation and a free a message, a quarter of reading a request
// of short messages.
class PartsView {
 public:
  const ContentPart* begin() const { return data_; }
  const ContentPart* end() const { return data_ + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const ContentPart& operator[](size_t index) const { return data_[index]; }

 private:
  friend struct ChatRequest;
  const ContentPart* data_ = nullptr;
  size_t size_ = 0;
};

struct ChatMessage {
  // "system", "user" or "assistant", as static text (known_role): a string of its own
  // was set and moved for each of a long session's messages.
  std::string_view role;
  PartsView parts;
};

// The static text of `role` when it is one a message may have, else empty.
std::string_view known_role(std::string_view role);

// Moves keep the views valid (the parts' storage moves whole); a copy would not, so
// there is none.
struct ChatRequest {
  ChatRequest() = default;
  ChatRequest(ChatRequest&&) = default;
  ChatRequest& operator=(ChatRequest&&) = default;
  ChatRequest(const ChatRequest&) = delete;
  ChatRequest& operator=(const ChatRequest&) = delete;

  std::string model;
  std::vector<ChatMessage> messages;
  std::optional<int64_t> max_tokens;
  std::optional<double> temperature;

  // For the readers: room for the messages and parts a request of `request_bytes` may
  // hold, a new part of the last message (valid until the next one is added), the last
  // message's parts taken back, and, once every part is in, each message's view pointed
  // at its own.
  void reserve_for(size_t request_bytes);
  ContentPart& add_part();
  void drop_last_parts();
  void seal();

 private:
  std::vector<ContentPart> parts_;
};

// Parses {"model","messages":[{"role","content":[parts] | "text"}],"max_tokens"?,
// "temperature"?}. Keys it does not know are ignored: newer engines may send more.
// Throws sdk::Error(AGENTRT_ERR_INVALID_ARGUMENT) naming what is wrong.
ChatRequest parse_chat_request(std::string_view request_json);
ChatRequest parse_chat_request(std::string&&) = delete;  // it would borrow a temporary
// The same with nlohmann's parser only: what parse_chat_request falls back to.
ChatRequest parse_chat_request_document(std::string_view request_json);
// The same read without a JSON document, for the plain shape the engine sends; empty
// when the request is anything else, which parse_chat_request then reads (and refuses)
// with nlohmann. parse_chat_request tries it first.
std::optional<ChatRequest> scan_chat_request(std::string_view request_json);
std::optional<ChatRequest> scan_chat_request(std::string&&) = delete;

// Room enough for a vendor's body of `chat`, to reserve at once: its texts and URLs as
// they stand, and the JSON around them. Grown by doubling instead, a body of long
// history was copied about twice over as it was written.
size_t body_size_hint(const ChatRequest& chat);

// The ends of a message written as `{"content":"<text>","role":"<role>"}` (OpenAI's and
// Ollama's shape), for the roles a request holds: `close`, `","role":"<role>"}`, and
// `close_and_next`, the same followed by the start of another such message,
// `,{"content":"`. Empty for any other role.
struct TextMessageEnds {
  std::string_view close, close_and_next;
};
TextMessageEnds text_message_ends(std::string_view role);

// The texts of `message`'s text parts joined with `separator`. A lone text is the part's
// own, borrowed as the part's is.
EscapedText joined_text(const ChatMessage& message, std::string_view separator);

}  // namespace agentrt::providers
