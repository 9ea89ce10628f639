#include "mcp/message_reader.h"

#include <algorithm>
#include <cctype>

namespace agentrt::mcp {

using nlohmann::json;

ServerMessage read_message(std::string_view text, bool require_version) {
  ServerMessage read;
  json message = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!message.is_object()) return read;
  if (require_version) {
    const auto version = message.find("jsonrpc");
    if (version == message.end() || *version != "2.0") return read;
  }
  if (message.contains("method"))
    read.kind = message.contains("id") ? MessageKind::request : MessageKind::notification;
  else if (message.contains("id"))
    read.kind = MessageKind::response;
  else
    read.kind = MessageKind::other;
  read.message = std::move(message);
  return read;
}

void LineReader::feed(std::string_view bytes, const LineFn& on_line) {
  while (!bytes.empty()) {
    const std::size_t end = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, end);
    bytes.remove_prefix(end == std::string_view::npos ? bytes.size() : end + 1);
    if (!dropping_line_) {
      if (buffer_.size() + piece.size() > max_line_) {
        // Past the limit: the rest of this line goes with what came of it.
        buffer_.clear();
        dropping_line_ = true;
      } else {
        buffer_.append(piece);
      }
    }
    if (end == std::string_view::npos) return;
    if (!dropping_line_) {
      if (!buffer_.empty() && buffer_.back() == '\r') buffer_.pop_back();
      if (!buffer_.empty()) on_line(buffer_);
    }
    buffer_.clear();
    dropping_line_ = false;
  }
}

void EventStreamReader::feed(std::string_view bytes, const MessageFn& on_message) {
  fields_.feed(bytes, [this](std::string_view line) { on_field(line); });
  events_.feed(bytes, [&](const providers::SseEvent& event) { on_message(event.data); });
}

void EventStreamReader::finish(const MessageFn& on_message) {
  events_.finish([&](const providers::SseEvent& event) { on_message(event.data); });
}

void EventStreamReader::restart() {
  events_ = providers::SseParser();
  fields_ = providers::LineSplitter(/*cr_ends_line=*/true);
}

void EventStreamReader::on_field(std::string_view line) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return;
  const std::string_view name = line.substr(0, colon);
  std::string_view value = line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (name == "id" && value.find('\0') == std::string_view::npos) last_event_id_.assign(value);
  const bool digits =
      !value.empty() && value.size() < 10 && std::all_of(value.begin(), value.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      });
  if (name == "retry" && digits) retry_ms_ = std::stol(std::string(value));
}

void read_json_answer(const std::string& body, const EventStreamReader::MessageFn& on_message) {
  const json answer = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (answer.is_array()) {
    for (const json& message : answer) on_message(message.dump());
  } else if (answer.is_object()) {
    on_message(body);
  }
}

}  // namespace agentrt::mcp
