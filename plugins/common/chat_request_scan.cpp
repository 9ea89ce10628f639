// The fast path of parse_chat_request (chat_request.h): the request read with
// JsonScanner, without a document. It accepts only the plain shape the engine sends
// and gives up on anything else (a missing or repeated member, a value of another
// type, a role or part type it does not know, a temperature, whose number the scanner
// does not read), so every refusal and every unusual request still goes through the
// nlohmann parser and reads exactly as before.
#include "common/chat_request.h"

#include "common/json_scan.h"

namespace agentrt::providers {
namespace {

// Each member once at most: with a repeated member nlohmann keeps the last value.
struct Seen {
  unsigned bits = 0;
  bool first(unsigned bit) {
    if (bits & bit) return false;
    bits |= bit;
    return true;
  }
};

bool scan_part(JsonScanner& scan, ContentPart& part) {
  if (!scan.enter_object()) return false;
  JsonText type;  // a view: "text" and "image_url" need no decoding
  Seen seen;
  bool ok = true;
  std::string_view key;
  while (ok && scan.next_key(key)) {
    if (key == "type")
      ok = seen.first(1) && scan.peek() == '"' && scan.read_text(type);
    else if (key == "text")
      ok = seen.first(2) && scan.read_escaped(part.text);
    else if (key == "url")
      ok = seen.first(4) && scan.read_string(part.url);
    else
      ok = scan.skip_value();
  }
  if (!ok || !scan.ok()) return false;
  if (type.view() == "text") return (seen.bits & 2) != 0;
  if (type.view() != "image_url" || (seen.bits & 4) == 0) return false;
  part.kind = ContentPart::Kind::image;
  return true;
}

// The content of `chat`'s last message.
bool scan_content(JsonScanner& scan, ChatRequest& chat) {
  if (scan.peek() == '"') return scan.read_escaped(chat.add_part().text);
  if (!scan.enter_array()) return false;
  while (scan.next_element()) {
    ContentPart& part = chat.add_part();
    if (!scan_part(scan, part)) return false;
    // The document parser keeps only the member its kind reads.
    if (part.kind == ContentPart::Kind::text)
      part.url.clear();
    else
      part.text = EscapedText();
  }
  return scan.ok();
}

// `chat`'s last message.
bool scan_message(JsonScanner& scan, ChatRequest& chat) {
  if (!scan.enter_object()) return false;
  std::string role;
  Seen seen;
  bool ok = true;
  std::string_view key;
  while (ok && scan.next_key(key)) {
    if (key == "role")
      ok = seen.first(1) && scan.read_string(role);
    else if (key == "content")
      ok = seen.first(2) && scan_content(scan, chat);
    else
      ok = scan.skip_value();
  }
  if (!ok || !scan.ok() || seen.bits != 3) return false;
  chat.messages.back().role = known_role(role);
  return !chat.messages.back().role.empty();
}

// The engine writes a message of one text as {"content":[{"text":"...","type":"text"}],
// "role":"..."} (core/runs/provider_request.cpp, keys sorted, no spaces), and most messages
// of a long session are that. Such a message is read by matching its fixed bytes (half
// the time of the general reading, on a request of short messages); any other, from
// its first byte again, the general way. Each literal is matched in its own consume(),
// whose length the compiler then knows, so that it compares in a few loads instead of
// calling memcmp.
bool scan_engine_message(JsonScanner& scan, ChatRequest& chat) {
  const char* start = scan.position();
  if (!scan.consume(R"({"content":[{"text":)")) return scan_message(scan, chat);
  if (!scan.read_escaped(chat.add_part().text)) return false;
  if (scan.consume(R"(,"type":"text"}],"role":")")) {
    std::string_view& role = chat.messages.back().role;
    if (scan.consume(R"(user"})"))
      role = "user";
    else if (scan.consume(R"(assistant"})"))
      role = "assistant";
    else if (scan.consume(R"(system"})"))
      role = "system";
    if (!role.empty()) return true;
  }
  chat.drop_last_parts();
  scan.rewind(start);
  return scan_message(scan, chat);
}

bool scan_messages(JsonScanner& scan, ChatRequest& chat) {
  if (!scan.enter_array()) return false;
  while (scan.next_element()) {
    chat.messages.emplace_back();
    if (!scan_engine_message(scan, chat)) return false;
  }
  return scan.ok() && !chat.messages.empty();
}

bool scan_max_tokens(JsonScanner& scan, std::optional<int64_t>& max_tokens) {
  if (scan.peek() == 'n') return scan.skip_value();  // null: no limit
  if (!scan.read_int(max_tokens) || !max_tokens) return false;
  return *max_tokens > 0;
}

}  // namespace

std::optional<ChatRequest> scan_chat_request(std::string_view request_json) {
  JsonScanner scan(request_json);
  ChatRequest out;
  out.reserve_for(request_json.size());
  Seen seen;
  bool ok = scan.enter_object();
  std::string_view key;
  while (ok && scan.next_key(key)) {
    if (key == "model")
      ok = seen.first(1) && scan.read_string(out.model) && !out.model.empty();
    else if (key == "messages")
      ok = seen.first(2) && scan_messages(scan, out);
    else if (key == "max_tokens")
      ok = seen.first(4) && scan_max_tokens(scan, out.max_tokens);
    else if (key == "temperature")
      ok = scan.peek() == 'n' && seen.first(8) && scan.skip_value();
    else
      ok = scan.skip_value();
  }
  if (!ok || !scan.finish() || (seen.bits & 3) != 3) return std::nullopt;
  out.seal();
  return out;
}

}  // namespace agentrt::providers
