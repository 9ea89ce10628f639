// Server-sent events (the WHATWG "event stream" format) as OpenAI and Anthropic send
// them: `event:` and `data:` fields, one optional space after the colon, several
// `data:` lines of one event joined with "\n", `:` comment lines and unknown fields
// ignored, a blank line ending the event.
#pragma once

#include "common/line_splitter.h"

#include <functional>
#include <string>
#include <string_view>

namespace agentrt::providers {

struct SseEvent {
  std::string event;  // empty when the event had no `event:` field
  std::string data;

  bool operator==(const SseEvent& other) const {
    return event == other.event && data == other.data;
  }
};

class SseParser {
 public:
  using EventFn = std::function<void(const SseEvent&)>;

  SseParser() : lines_(/*cr_ends_line=*/true) {}

  // Hands every event completed by `bytes` to `on_event`.
  void feed(std::string_view bytes, const EventFn& on_event);

  // At a clean end of the stream: dispatches an event whose lines all arrived but
  // whose closing blank line did not. A partial last line is dropped, as the format
  // says.
  void finish(const EventFn& on_event);

 private:
  void on_line(std::string_view line, const EventFn& on_event);
  void dispatch(const EventFn& on_event);

  LineSplitter lines_;
  bool at_stream_start_ = true;  // a UTF-8 byte order mark may lead the stream
  bool has_data_ = false;
  SseEvent current_;
};

}  // namespace agentrt::providers
