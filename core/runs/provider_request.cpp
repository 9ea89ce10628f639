#include "core/runs/provider_request.h"

#include "core/domain/json_text.h"
#include "core/runs/tool_request.h"

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

// A tool part as the text a model without tools is sent instead.
nlohmann::json tool_part_as_text(const nlohmann::json& part) {
  const std::string type = part.value("type", "");
  std::string text;
  if (type == "tool_call")
    text = "[called tool " + part.value("name", "") + " with " + part.value("arguments", "") +
           " (call " + part.value("id", "") + ")]";
  else if (type == "tool_result")
    text = std::string(part.value("is_error", false) ? "[error from" : "[result of") +
           " tool call " + part.value("tool_call_id", "") + ": " + part.value("output", "") + "]";
  else
    return part;
  return {{"text", text}, {"type", "text"}};
}

// A stored content with each image part the model does not take, and each tool part
// when it takes no tools, as a text part saying what it was.
void append_rewritten(std::string& out, std::string_view content_json, bool takes_images,
                      bool takes_tools) {
  nlohmann::json content = nlohmann::json::parse(content_json);
  for (nlohmann::json& part : content) {
    if (part.value("type", "") == "image_url" && !takes_images)
      part = {{"text", kImageLeftOut}, {"type", "text"}};
    else if (!takes_tools)
      part = tool_part_as_text(part);
  }
  append_json_value(out, content);
}

void append_tool_choice(JsonObjectText& request, const ToolChoice& choice) {
  if (choice.mode != "tool") {
    request.string("tool_choice", choice.mode);
    return;
  }
  JsonObjectText named(request.member("tool_choice"));
  named.string("name", choice.name).string("type", "tool").close();
}

}  // namespace

// The context is written where it is instead of copied into a JSON document first, and a
// message goes in two appends: written key by key, a long session's 1,600 messages take
// 180-200 us a /chat, against 105-120, and each append saved is a call into libstdc++
// (bench/README.md).
std::string provider_request(const RunContext& context, const std::string& model,
                             std::optional<int64_t> max_tokens, std::optional<double> temperature,
                             bool takes_images, const ToolOffer& offer) {
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
    const bool tools_as_text = m.has_tool_parts && !offer.takes_tools;
    if (tools_as_text || (m.has_image && !takes_images))
      append_rewritten(messages, m.content_text.str(), takes_images, offer.takes_tools);
    else
      messages += m.content_text.str();
    append_role_and_next(messages, tools_as_text && m.role == "tool" ? "user" : m.role, --left > 0);
  });
  messages += ']';
  request.string("model", model);
  if (temperature) request.value("temperature", *temperature);
  if (offer.tools && !offer.tools->empty() && offer.takes_tools) {
    if (offer.choice) append_tool_choice(request, *offer.choice);
    request.member("tools") += tools_json(*offer.tools);
  }
  request.close();
  return text;
}

}  // namespace agentrt::core
