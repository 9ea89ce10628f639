#include "core/runs/provider_request.h"

#include "core/domain/json_text.h"

#include <string_view>

namespace agentrt::core {
namespace {

// The end of a message, `,"role":"<role>"}`, and when another follows, that one's start,
// `,{"content":`: one append between two contents. Roles are user, assistant or system
// (run_request.cpp); any other is escaped. A view, so that each comparison looks at the
// length first (a std::string against a literal is a strlen and a memcmp: 4% of a long
// session's /chat).
void append_role_and_next(std::string& out, std::string_view role, bool next) {
  if (role == "user") {
    out += next ? R"(,"role":"user"},{"content":)" : R"(,"role":"user"})";
  } else if (role == "assistant") {
    out += next ? R"(,"role":"assistant"},{"content":)" : R"(,"role":"assistant"})";
  } else {
    out += R"(,"role":)";
    append_json_string(out, role);
    out += next ? R"(},{"content":)" : "}";
  }
}

// A stored content with each image part as a text part saying it was left out.
void append_without_images(std::string& out, std::string_view content_json) {
  nlohmann::json content = nlohmann::json::parse(content_json);
  for (nlohmann::json& part : content) {
    if (part.value("type", "") == "image_url") part = {{"text", kImageLeftOut}, {"type", "text"}};
  }
  append_json_value(out, content);
}

}  // namespace

// The context is written where it is instead of copied into a JSON document first, and a
// message goes in two appends: written key by key, a long session's 1,600 messages take
// 180-200 us a /chat, against 105-120, and each append saved is a call into libstdc++
// (bench/README.md).
std::string provider_request(const RunContext& context, const std::string& model,
                             std::optional<int64_t> max_tokens, std::optional<double> temperature,
                             bool takes_images) {
  std::string text;
  // The stored texts are most of it; growing into a long session's 300 KB went
  // through a dozen reallocations and copies.
  size_t size = 128 + model.size();
  context.each([&](const StoredMessage& m) { size += m.content_text.size() + 32; });
  text.reserve(size);
  JsonObjectText request(text);
  if (max_tokens) request.integer("max_tokens", *max_tokens);
  std::string& messages = request.member("messages");
  messages += '[';
  if (context.size() > 0) messages += R"({"content":)";
  size_t left = context.size();
  context.each([&](const StoredMessage& m) {
    if (m.has_image && !takes_images)
      append_without_images(messages, m.content_text.str());
    else
      messages += m.content_text.str();
    append_role_and_next(messages, m.role, --left > 0);
  });
  messages += ']';
  request.string("model", model);
  if (temperature) request.value("temperature", *temperature);
  request.close();
  return text;
}

}  // namespace agentrt::core
