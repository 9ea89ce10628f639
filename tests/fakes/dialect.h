// One vendor's wire format, as the fake upstream writes it. Each dialect produces
// whole events (an SSE event with its blank line, or one NDJSON line); the
// connection decides when and in how many pieces they go out.
#pragma once

#include "tests/fakes/fake_upstream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace agentrt::test {

// What a dialect needs to know about the request it answers.
struct StreamContext {
  std::string model;           // echoed in chunks, as the services do
  bool include_usage = false;  // OpenAI sends usage only when asked
  std::string eol = "\n";      // "\r\n" when the reply asks for CRLF
};

class Dialect {
 public:
  virtual ~Dialect() = default;

  virtual std::string api_path() const = 0;   // e.g. "/v1/chat/completions"
  virtual std::string base_path() const = 0;  // what base_url carries: "/v1" or ""
  virtual std::string stream_content_type() const = 0;

  // The refusal the real service would give `request`, if any (a Reply of
  // Kind::fail). `required_key` is "" when the test did not require one.
  virtual std::optional<Reply> refuse(const RecordedRequest& request,
                                      const std::string& required_key) const = 0;

  // The error body for a failing reply (`reply.status`, type, message).
  virtual std::string error_body(const Reply& reply) const = 0;

  virtual std::vector<std::string> opening(const StreamContext& ctx, const Reply& reply) const = 0;
  virtual std::string delta(const StreamContext& ctx, const std::string& fragment) const = 0;
  // The events of `reply.tool_calls`, between the text's deltas and the closing. A
  // dialect that streams calls overrides it.
  virtual std::vector<std::string> tool_calls(const StreamContext& ctx, const Reply& reply) const {
    (void)ctx;
    (void)reply;
    return {};
  }
  virtual std::vector<std::string> closing(const StreamContext& ctx, const Reply& reply) const = 0;
  virtual std::string malformed(const StreamContext& ctx) const = 0;
  virtual std::vector<std::string> error_event(const StreamContext& ctx,
                                               const Reply& reply) const = 0;
};

std::unique_ptr<Dialect> make_dialect(Vendor vendor);

// Shared helpers for the dialects.
std::string sse_event(const StreamContext& ctx, const std::string& event,
                      const nlohmann::json& data);
std::string sse_data(const StreamContext& ctx, const std::string& data);
// `text` cut into `parts` pieces of about equal length, never inside a character.
std::vector<std::string> split_utf8(const std::string& text, int parts);
// Request body checks every dialect makes.
std::optional<Reply> refuse_common(const RecordedRequest& request, const std::string& path,
                                   bool stream_default);

}  // namespace agentrt::test
