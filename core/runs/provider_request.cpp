#include "core/runs/provider_request.h"

#include "core/domain/json_text.h"

#include <string_view>

namespace agentrt::core {
namespace {

// `,"role":"<role>"}`, the end of a message. Roles are user, assistant or system
// (run_request.cpp); any other is escaped. A view, so that each comparison looks at the
// length first (a std::string against a literal is a strlen and a memcmp: 4% of a long
// session's /chat).
void append_role_and_close(std::string& out, std::string_view role) {
  if (role == "user") {
    out += R"(,"role":"user"})";
  } else if (role == "assistant") {
    out += R"(,"role":"assistant"})";
  } else {
    out += R"(,"role":)";
    append_json_string(out, role);
    out += '}';
  }
}

}  // namespace

// The context is written where it is instead of copied into a JSON document first, and
// a message goes in three appends: written key by key, a long session's 1,600 messages
// took 180-200 us a /chat, against 105-120 (bench/README.md, session 19).
std::string provider_request(const RunContext& context, const std::string& model,
                             std::optional<int64_t> max_tokens, std::optional<double> temperature) {
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
  context.each([&](const StoredMessage& m) {
    messages += messages.back() == '[' ? R"({"content":)" : R"(,{"content":)";
    if (m.content_text.empty())
      append_json_value(messages, m.content);
    else
      messages += m.content_text.str();
    append_role_and_close(messages, m.role);
  });
  messages += ']';
  request.string("model", model);
  if (temperature) request.value("temperature", *temperature);
  request.close();
  return text;
}

}  // namespace agentrt::core
