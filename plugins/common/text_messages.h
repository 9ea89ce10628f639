// The messages of a request in OpenAI's and Ollama's shape: a message that is only text,
// of a known role, goes as `{"content":"<text>","role":"<role>"}`, and in a run of those
// one's end and the next one's start are written together, text and joint, two appends
// a message instead of four (bench/README.md, session 22). Any other message goes to the
// vendor's own writer.
#pragma once

#include "common/chat_request.h"
#include "common/json_writer.h"

#include <string_view>
#include <vector>

namespace agentrt::providers {

// `is_text(message)`: whether it goes as text; `write_text(message, write)`: calls
// `write(std::string_view escaped_text)` once with its text; `write_other(message)`:
// writes it whole.
template <class IsText, class WriteText, class WriteOther>
void write_messages(JsonWriter& out, const std::vector<ChatMessage>& messages, IsText is_text,
                    WriteText write_text, WriteOther write_other) {
  // What the next message is, found once: whether it goes as text, and its ends.
  const auto ends_as_text = [&](size_t i) {
    if (i >= messages.size()) return TextMessageEnds{};
    const TextMessageEnds ends = text_message_ends(messages[i].role);
    return !ends.close.empty() && is_text(messages[i]) ? ends : TextMessageEnds{};
  };
  bool started = false;  // the previous message wrote this one's `{"content":"`
  TextMessageEnds ends = ends_as_text(0);
  for (size_t i = 0; i < messages.size(); ++i) {
    const TextMessageEnds next = ends_as_text(i + 1);
    const ChatMessage& message = messages[i];
    if (ends.close.empty()) {
      write_other(message);
    } else {
      const std::string_view end = next.close.empty() ? ends.close : ends.close_and_next;
      write_text(message, [&](std::string_view text) {
        if (started)
          out.raw(text).raw(end);
        else
          out.around(R"({"content":")", text, end);
      });
      started = !next.close.empty();
    }
    ends = next;
  }
}

}  // namespace agentrt::providers
