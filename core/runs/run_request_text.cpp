#include "core/runs/run_request_text.h"

#include "core/domain/json_text.h"
#include "core/runs/context_window.h"

#include <charconv>
#include <cstdint>
#include <string>

namespace agentrt::core {
namespace {

// A cursor over the body. Each read returns false when what comes is not of the plain
// shape (or not JSON at all), which sends the whole body the general way.
class PlainReader {
 public:
  explicit PlainReader(std::string_view text) : text_(text) {}

  // Skips whitespace, then takes `c` if it comes.
  bool take(char c) {
    skip_space();
    if (at_ >= text_.size() || text_[at_] != c) return false;
    ++at_;
    return true;
  }
  bool at_end() {
    skip_space();
    return at_ == text_.size();
  }
  bool string(std::string& out);
  bool boolean(bool& out);
  // An integer without fraction or exponent that fits in 63 bits.
  bool integer(int64_t& out);
  // A number that is not negative (so never -0), as nlohmann would read it as a double.
  bool non_negative_number(double& out);

 private:
  void skip_space() {
    while (at_ < text_.size() &&
           (text_[at_] == ' ' || text_[at_] == '\n' || text_[at_] == '\r' || text_[at_] == '\t'))
      ++at_;
  }
  bool escape(std::string& out);
  bool hex4(uint32_t& out);
  size_t digits();

  std::string_view text_;
  size_t at_ = 0;
};

bool PlainReader::string(std::string& out) {
  if (!take('"')) return false;
  out.clear();
  size_t run = at_;
  while (at_ < text_.size()) {
    const auto c = static_cast<unsigned char>(text_[at_]);
    if (c == '"') {
      out.append(text_.substr(run, at_ - run));
      ++at_;
      return true;
    }
    if (c < 0x20) return false;  // nlohmann refuses a raw control byte
    if (c == '\\') {
      out.append(text_.substr(run, at_ - run));
      if (!escape(out)) return false;
      run = at_;
    } else if (c >= 0x80) {
      const size_t length = utf8_sequence_length(text_, at_);
      if (length == 0) return false;
      at_ += length;
    } else {
      ++at_;
    }
  }
  return false;
}

bool PlainReader::hex4(uint32_t& out) {
  if (at_ + 4 > text_.size()) return false;
  const char* first = text_.data() + at_;
  for (int i = 0; i < 4; ++i) {
    const char c = first[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  }
  std::from_chars(first, first + 4, out, 16);
  at_ += 4;
  return true;
}

void append_utf8(std::string& out, uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

// At a backslash: appends what the escape stands for. A lone or reversed surrogate is
// refused, as nlohmann refuses it.
bool PlainReader::escape(std::string& out) {
  if (++at_ >= text_.size()) return false;
  const char c = text_[at_++];
  switch (c) {
    case '"':
    case '\\':
    case '/':
      out += c;
      return true;
    case 'b':
      out += '\b';
      return true;
    case 'f':
      out += '\f';
      return true;
    case 'n':
      out += '\n';
      return true;
    case 'r':
      out += '\r';
      return true;
    case 't':
      out += '\t';
      return true;
    case 'u':
      break;
    default:
      return false;
  }
  uint32_t code = 0;
  if (!hex4(code) || (code >= 0xDC00 && code <= 0xDFFF)) return false;
  if (code >= 0xD800 && code <= 0xDBFF) {
    uint32_t low = 0;
    if (text_.substr(at_, 2) != "\\u") return false;
    at_ += 2;
    if (!hex4(low) || low < 0xDC00 || low > 0xDFFF) return false;
    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
  }
  append_utf8(out, code);
  return true;
}

bool PlainReader::boolean(bool& out) {
  skip_space();
  for (const std::string_view word : {std::string_view("true"), std::string_view("false")}) {
    if (text_.substr(at_, word.size()) == word) {
      at_ += word.size();
      out = word.size() == 4;
      return true;
    }
  }
  return false;
}

size_t PlainReader::digits() {
  const size_t from = at_;
  while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
  return at_ - from;
}

bool PlainReader::integer(int64_t& out) {
  skip_space();
  const size_t from = at_;
  if (at_ < text_.size() && text_[at_] == '-') ++at_;
  const size_t count = digits();
  if (count == 0 || count > 18 || (count > 1 && text_[at_ - count] == '0')) return false;
  // A fraction or an exponent makes a float, which parse_run_request refuses here.
  if (at_ < text_.size() && (text_[at_] == '.' || text_[at_] == 'e' || text_[at_] == 'E'))
    return false;
  std::from_chars(text_.data() + from, text_.data() + at_, out);
  return true;
}

bool PlainReader::non_negative_number(double& out) {
  skip_space();
  const size_t from = at_;
  const size_t whole = digits();
  if (whole == 0 || (whole > 1 && text_[from] == '0')) return false;
  if (at_ < text_.size() && text_[at_] == '.') {
    ++at_;
    if (digits() == 0) return false;
  }
  if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
    ++at_;
    if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
    if (digits() == 0) return false;
  }
  // Correctly rounded, as the strtod nlohmann uses.
  const auto read = std::from_chars(text_.data() + from, text_.data() + at_, out);
  return read.ec == std::errc() && read.ptr == text_.data() + at_;
}

// {"type":"text","text":...} in either order: its text.
bool read_text_part(PlainReader& in, std::string& text) {
  if (!in.take('{')) return false;
  bool typed = false, texted = false;
  std::string key, type;
  do {
    if (!in.string(key) || !in.take(':')) return false;
    if (key == "type" && !typed) {
      typed = true;
      if (!in.string(type) || type != "text") return false;
    } else if (key == "text" && !texted) {
      texted = true;
      if (!in.string(text)) return false;
    } else {
      return false;
    }
  } while (in.take(','));
  return in.take('}') && typed && texted;
}

// The parts, written as append_json_value writes the content parse_run_request makes.
bool read_content(PlainReader& in, StoredMessage& message) {
  if (!in.take('[')) return false;
  std::string content = "[";
  std::string text;
  do {
    if (!read_text_part(in, text)) return false;
    if (content.size() > 1) content += ',';
    append_text_part(content, text);
  } while (in.take(','));
  if (!in.take(']')) return false;
  content += ']';
  message.tokens = estimate_stored_tokens(content);
  message.content_text = std::move(content);
  return true;
}

bool read_message(PlainReader& in, StoredMessage& message) {
  if (!in.take('{')) return false;
  bool has_role = false, has_content = false;
  std::string key;
  do {
    if (!in.string(key) || !in.take(':')) return false;
    if (key == "role" && !has_role) {
      has_role = true;
      if (!in.string(message.role)) return false;
      if (message.role != "user" && message.role != "assistant" && message.role != "system")
        return false;
    } else if (key == "content" && !has_content) {
      has_content = true;
      if (!read_content(in, message)) return false;
    } else {
      return false;
    }
  } while (in.take(','));
  return in.take('}') && has_role && has_content;
}

bool read_messages(PlainReader& in, std::vector<StoredMessage>& messages) {
  if (!in.take('[')) return false;
  do {
    if (!read_message(in, messages.emplace_back())) return false;
  } while (in.take(','));
  return in.take(']');
}

enum Field : unsigned {
  kModel = 1,
  kMessages = 2,
  kActor = 4,
  kSessionId = 8,
  kAgentId = 16,
  kMemory = 32,
  kIfBusy = 64,
  kMaxTokens = 128,
  kTemperature = 256,
};

Field field_named(const std::string& name) {
  static const std::pair<std::string_view, Field> kFields[] = {
      {"model", kModel},          {"messages", kMessages},    {"actor", kActor},
      {"session_id", kSessionId}, {"agent_id", kAgentId},     {"memory", kMemory},
      {"if_busy", kIfBusy},       {"max_tokens", kMaxTokens}, {"temperature", kTemperature}};
  for (const auto& [known, field] : kFields)
    if (name == known) return field;
  return Field{0};
}

// One field's value into `request`; false when it is not plain or would be refused.
bool read_field(PlainReader& in, Field field, RunRequest& request) {
  std::string text;
  switch (field) {
    case kModel:
      return in.string(request.model);
    case kMessages:
      return read_messages(in, request.messages);
    case kActor:
      return in.string(request.actor.emplace());
    case kSessionId:
      return in.string(request.session_id.emplace()) && valid_session_id(*request.session_id);
    case kAgentId:
      return in.string(request.agent_id.emplace());
    case kMemory:
      return in.boolean(request.use_memory);
    case kIfBusy:
      if (!in.string(text) || (text != "interrupt" && text != "reject")) return false;
      request.interrupt_if_busy = text == "interrupt";
      return true;
    case kMaxTokens:
      return in.integer(request.max_tokens.emplace()) && *request.max_tokens >= 1 &&
             *request.max_tokens <= 10000000;
    case kTemperature:
      return in.non_negative_number(request.temperature.emplace()) && *request.temperature <= 2;
  }
  return false;
}

}  // namespace

std::optional<RunRequest> read_plain_run_request(std::string_view body) {
  PlainReader in(body);
  RunRequest request;
  if (!in.take('{')) return std::nullopt;
  unsigned seen = 0;
  std::string key;
  do {
    if (!in.string(key) || !in.take(':')) return std::nullopt;
    const Field field = field_named(key);
    if (field == 0 || (seen & field) != 0) return std::nullopt;
    seen |= field;
    if (!read_field(in, field, request)) return std::nullopt;
  } while (in.take(','));
  if (!in.take('}') || !in.at_end() || (seen & kMessages) == 0) return std::nullopt;
  if (request.model.empty() && !request.agent_id) return std::nullopt;
  return request;
}

}  // namespace agentrt::core
