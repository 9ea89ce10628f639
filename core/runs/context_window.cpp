#include "core/runs/context_window.h"

#include "core/domain/errors.h"
#include "core/domain/json_sax.h"
#include "core/domain/json_text.h"

#include <algorithm>
#include <stdexcept>

namespace agentrt::core {
namespace {

constexpr int64_t kFraming = 4;
constexpr const char* kMemoryHeading = "\n\nWhat you remember (newest first within each kind):";

std::string memory_line(const MemoryItem& item) {
  return "\n- (" + item.layer + ") " + item.content;
}

StoredMessage system_message(const std::string& text) {
  return {"system", nlohmann::json::array({{{"type", "text"}, {"text", text}}})};
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

// A content part's share: its text's (by weighted_bytes), or an image's.
int64_t part_tokens(bool is_text, size_t text_bytes) {
  return is_text ? static_cast<int64_t>((text_bytes + 3) / 4) : 256;
}

}  // namespace

int64_t estimate_text_tokens(const std::string& text) {
  return part_tokens(true, weighted_bytes(text));
}

namespace {

// A message of one text, in the form the store keeps it (append_json_value of its
// content): read without a parser, which took 5,900 instructions a message, once for each
// message a run stores and for each of a window's when it is read whole.
std::optional<int64_t> one_text_tokens(std::string_view content_json) {
  if (!take_prefix(content_json, R"([{"text":")") ||
      !take_suffix(content_json, R"(","type":"text"}])"))
    return std::nullopt;
  const std::optional<DecodedSize> text = decoded_size(content_json);
  if (!text) return std::nullopt;
  return part_tokens(true, text->bytes + text->three_byte_characters);
}

}  // namespace

int64_t estimate_stored_tokens(std::string_view content_json) {
  if (std::optional<int64_t> tokens = one_text_tokens(content_json)) return kFraming + *tokens;
  return kFraming + estimate_content_tokens(content_json);
}

// Reads the parts of a content array for estimate_tokens' sum, without a DOM: each
// part's "type" and the weighted bytes of its "text" (depth 2; deeper objects, such as an
// image part's, are skipped).
class ContentTokens : public JsonSaxReader {
 public:
  int64_t tokens = 0;
  bool image = false;

  bool key(string_t& name) override {
    key_ = depth_ == 2 ? name : std::string();
    return true;
  }
  bool string(string_t& value) override {
    if (depth_ == 2 && key_ == "type") {
      is_text_ = value == "text";
      image = image || value == "image_url";
    }
    if (depth_ == 2 && key_ == "text") text_bytes_ = weighted_bytes(value);
    return true;
  }
  bool start_object(std::size_t) override {
    if (++depth_ == 2) is_text_ = false, text_bytes_ = 0;
    return true;
  }
  bool end_object() override {
    if (depth_-- == 2) tokens += part_tokens(is_text_, text_bytes_);
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth_;
    return true;
  }
  bool end_array() override {
    --depth_;
    return true;
  }

 private:
  int depth_ = 0;
  std::string key_;
  bool is_text_ = false;
  size_t text_bytes_ = 0;
};

namespace {

ContentTokens read_content(std::string_view content_json) {
  ContentTokens parts;
  if (!nlohmann::json::sax_parse(content_json, &parts))
    throw std::runtime_error("a stored message's content is not JSON");
  return parts;
}

}  // namespace

int64_t estimate_content_tokens(std::string_view content_json) {
  return read_content(content_json).tokens;
}

void estimate_stored(StoredMessage& message) {
  const std::string_view text = message.content_text;
  if (std::optional<int64_t> tokens = one_text_tokens(text)) {
    message.tokens = kFraming + *tokens;
    message.has_image = false;
    return;
  }
  const ContentTokens parts = read_content(text);
  message.tokens = kFraming + parts.tokens;
  message.has_image = parts.image;
}

int64_t estimate_parsed_tokens(const StoredMessage& message) {
  int64_t tokens = kFraming;
  for (const auto& part : message.content) {
    const bool is_text = part.value("type", "") == "text";
    tokens += part_tokens(is_text, is_text ? weighted_bytes(part.value("text", "")) : 0);
  }
  return tokens;
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
  int64_t used = 0;
  for (const auto& m : parts.fresh) used += estimate_tokens(m);
  if (!parts.system_prompt.empty()) used += kFraming + estimate_text_tokens(parts.system_prompt);
  if (used > budget)
    throw invalid("field 'messages' needs about " + std::to_string(used) + " tokens" +
                  (parts.system_prompt.empty() ? "" : " with the system prompt") +
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
  const StoredMessage* kept = parts.history.end();
  for (; kept != parts.history.begin(); --kept) {
    const int64_t tokens = estimate_tokens(kept[-1]);
    if (used + tokens > room) break;
    used += tokens;
  }
  size_t first = static_cast<size_t>(kept - parts.history.begin());
  while (first < parts.history.size() && parts.history[first].role == "assistant") ++first;

  RunContext out;
  if (!system.empty()) {
    // The memory heading opens the message when there is no prompt before it.
    if (parts.system_prompt.empty()) system.erase(0, 2);
    out.system.push_back(system_message(system));
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
