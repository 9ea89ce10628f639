#include "core/runs/provider_request.h"

#include "core/domain/json_text.h"
#include "core/runs/tool_request.h"

#include <string_view>
#include <utility>
#include <vector>

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

// Tool messages that hold tool_approval parts, which record a person's word on a call
// and are no vendor's: each with its content less them ("" when nothing is left, and
// the message is not sent). Approvals are rare, and only tool messages are looked at.
using Rewrites = std::vector<std::pair<const StoredMessage*, std::string>>;
Rewrites approvals_left_out(const RunContext& context, size_t& sent) {
  Rewrites rewrites;
  sent = context.size();
  context.each([&](const StoredMessage& m) {
    if (m.role != "tool" || m.content_text.str().find(R"("tool_approval")") == std::string::npos)
      return;
    nlohmann::json content = nlohmann::json::parse(m.content_text.str());
    nlohmann::json kept = nlohmann::json::array();
    for (nlohmann::json& part : content)
      if (part.value("type", "") != "tool_approval") kept.push_back(std::move(part));
    if (kept.empty()) --sent;
    rewrites.emplace_back(&m, kept.empty() ? "" : kept.dump());
  });
  return rewrites;
}

const std::string* rewrite_of(const Rewrites& rewrites, const StoredMessage& m) {
  for (const auto& [message, content] : rewrites)
    if (message == &m) return &content;
  return nullptr;
}

void append_stop(JsonObjectText& request, const std::vector<std::string>& stop) {
  std::string& out = request.member("stop");
  out += '[';
  for (const std::string& sequence : stop) {
    if (out.back() != '[') out += ',';
    append_json_string(out, sequence);
  }
  out += ']';
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
                             bool takes_images, const ToolOffer& offer,
                             const GenerationOptions* generation) {
  static const GenerationOptions kNone;
  const GenerationOptions& options = generation ? *generation : kNone;
  const bool sends_tools = offer.tools && !offer.tools->empty() && offer.takes_tools;
  std::string text;
  // The stored texts are most of it; growing into a long session's 300 KB went
  // through a dozen reallocations and copies.
  size_t size = 128 + model.size();
  context.each([&](const StoredMessage& m) { size += m.content_text.size() + 32; });
  text.reserve(size);
  JsonObjectText request(text);
  if (options.frequency_penalty) request.value("frequency_penalty", *options.frequency_penalty);
  if (max_tokens) request.integer("max_tokens", *max_tokens);
  std::string& messages = request.member("messages");
  messages += '[';
  size_t left = 0;
  const Rewrites rewrites = approvals_left_out(context, left);
  if (left > 0) messages += R"({"content":)";
  context.each([&](const StoredMessage& m) {
    const std::string* rewritten = rewrites.empty() ? nullptr : rewrite_of(rewrites, m);
    if (rewritten && rewritten->empty()) return;
    const bool tools_as_text = m.has_tool_parts && !offer.takes_tools;
    if (rewritten)
      append_rewritten(messages, *rewritten, takes_images, offer.takes_tools);
    else if (tools_as_text || (m.has_image && !takes_images))
      append_rewritten(messages, m.content_text.str(), takes_images, offer.takes_tools);
    else
      messages += m.content_text.str();
    append_role_and_next(messages, tools_as_text && m.role == "tool" ? "user" : m.role, --left > 0);
  });
  messages += ']';
  request.string("model", model);
  if (sends_tools && options.parallel_tool_calls)
    request.boolean("parallel_tool_calls", *options.parallel_tool_calls);
  if (options.presence_penalty) request.value("presence_penalty", *options.presence_penalty);
  if (options.seed) request.integer("seed", *options.seed);
  if (!options.stop.empty()) append_stop(request, options.stop);
  if (temperature) request.value("temperature", *temperature);
  if (sends_tools) {
    if (offer.choice) append_tool_choice(request, *offer.choice);
    request.member("tools") += tools_json(*offer.tools);
  }
  if (options.top_p) request.value("top_p", *options.top_p);
  request.close();
  return text;
}

}  // namespace agentrt::core
