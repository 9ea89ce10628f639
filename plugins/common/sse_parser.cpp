#include "common/sse_parser.h"

namespace agentrt::providers {
namespace {

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

}  // namespace

void SseParser::feed(std::string_view bytes, const EventFn& on_event) {
  lines_.feed(bytes, [&](std::string_view line) { on_line(line, on_event); });
}

void SseParser::finish(const EventFn& on_event) {
  if (has_data_) dispatch(on_event);
}

void SseParser::on_line(std::string_view line, const EventFn& on_event) {
  if (at_stream_start_) {
    at_stream_start_ = false;
    if (line.substr(0, kByteOrderMark.size()) == kByteOrderMark)
      line.remove_prefix(kByteOrderMark.size());
  }
  if (line.empty()) {
    if (has_data_) {
      dispatch(on_event);
    } else {
      current_.event.clear();  // an event without data is discarded, type and all
      current_.data.clear();
    }
    return;
  }
  if (line.front() == ':') return;
  size_t colon = line.find(':');
  std::string_view field = line.substr(0, colon);
  std::string_view value;
  if (colon != std::string_view::npos) {
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    if (has_data_) current_.data.push_back('\n');
    current_.data.append(value);
    has_data_ = true;
  } else if (field == "event") {
    current_.event.assign(value);
  }
  // `id`, `retry` and unknown fields do not matter to a completion stream.
}

void SseParser::dispatch(const EventFn& on_event) {
  has_data_ = false;
  // The event is handed on in place and emptied afterwards, however the handler left,
  // so its buffers keep their capacity from event to event.
  struct Reset {
    SseEvent& e;
    ~Reset() {
      e.event.clear();
      e.data.clear();
    }
  } reset{current_};
  on_event(current_);
}

}  // namespace agentrt::providers
