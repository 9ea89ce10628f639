#include "recorded_streams.h"

#include <cstdint>

namespace agentrt::bench {
namespace {

struct Fragment {
  const char* json;  // as it stands inside the JSON string on the wire
  const char* text;  // what it decodes to
};

// Mostly short plain tokens, as models stream them, with the escapes real answers
// carry: quotes, newlines, \u escapes (some servers escape all non-ASCII), a
// surrogate pair, and raw UTF-8.
const Fragment kFragments[] = {
    {"The", "The"},
    {" answer", " answer"},
    {" is", " is"},
    {": \\\"yes\\\"", ": \"yes\""},
    {".\\n\\n", ".\n\n"},
    {"Caf\\u00e9", "Caf\xC3\xA9"},
    {" na\xC3\xAFve", " na\xC3\xAFve"},
    {" \\ud83c\\udf0d", " \xF0\x9F\x8C\x8D"},
    {" costs", " costs"},
    {" \xE2\x82\xAC"
     "42",
     " \xE2\x82\xAC"
     "42"},
    {" per", " per"},
    {" month", " month"},
    {",", ","},
    {" billed", " billed"},
    {" yearly", " yearly"},
    {".", "."},
};
constexpr int kFragmentCount = sizeof(kFragments) / sizeof(kFragments[0]);

const Fragment& fragment(int i) {
  return kFragments[i % kFragmentCount];
}

const std::string kOpenAiHead =
    R"({"id":"chatcmpl-BwS3tqJ9v8XrF0bC1aZkYq2mN5pLd","object":"chat.completion.chunk",)"
    R"("created":1753190000,"model":"gpt-4o-mini-2024-07-18","service_tier":"default",)"
    R"("system_fingerprint":"fp_34a54ae93c","choices":[{"index":0,"delta":)";

std::string openai_chunk(const std::string& delta, const std::string& finish) {
  return "data: " + kOpenAiHead + delta + R"(,"logprobs":null,"finish_reason":)" + finish +
         R"(}],"usage":null,"obfuscation":"xQ1"})" + "\n\n";
}

RecordedStream openai_stream(int deltas) {
  RecordedStream s;
  s.body = openai_chunk(R"({"role":"assistant","content":"","refusal":null})", "null");
  for (int i = 0; i < deltas; ++i) {
    s.body += openai_chunk(std::string(R"({"content":")") + fragment(i).json + "\"}", "null");
    s.texts.emplace_back(fragment(i).text);
  }
  s.body += openai_chunk("{}", "\"stop\"");
  s.body +=
      "data: "
      R"({"id":"chatcmpl-BwS3tqJ9v8XrF0bC1aZkYq2mN5pLd","object":"chat.completion.chunk",)"
      R"("created":1753190000,"model":"gpt-4o-mini-2024-07-18","service_tier":"default",)"
      R"("system_fingerprint":"fp_34a54ae93c","choices":[],"usage":{"prompt_tokens":19,)"
      R"("completion_tokens":16,"total_tokens":35,"prompt_tokens_details":{"cached_tokens":0,)"
      R"("audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,)"
      R"("accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"obfuscation":"k2"})"
      "\n\ndata: [DONE]\n\n";
  s.events = static_cast<size_t>(deltas) + 4;
  return s;
}

std::string anthropic_event(const std::string& name, const std::string& data) {
  return "event: " + name + "\ndata: " + data + "\n\n";
}

RecordedStream anthropic_stream(int deltas) {
  RecordedStream s;
  s.body = anthropic_event(
      "message_start",
      R"({"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message",)"
      R"("role":"assistant","model":"claude-sonnet-4-20250514","content":[],"stop_reason":null,)"
      R"("stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,)"
      R"("cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}}})");
  s.body += anthropic_event(
      "content_block_start",
      R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})");
  s.body += anthropic_event("ping", R"({"type": "ping"})");
  for (int i = 0; i < deltas; ++i) {
    s.body +=
        anthropic_event("content_block_delta", R"({"type":"content_block_delta","index":0,"delta":)"
                                               R"({"type":"text_delta","text":")" +
                                                   std::string(fragment(i).json) + "\"}}");
    s.texts.emplace_back(fragment(i).text);
  }
  s.body += anthropic_event("content_block_stop", R"({"type":"content_block_stop","index":0})");
  s.body += anthropic_event("message_delta",
                            R"({"type":"message_delta","delta":{"stop_reason":"end_turn",)"
                            R"("stop_sequence":null},"usage":{"output_tokens":16}})");
  s.body += anthropic_event("message_stop", R"({"type":"message_stop"})");
  s.events = static_cast<size_t>(deltas) + 6;
  return s;
}

RecordedStream ollama_stream(int deltas) {
  RecordedStream s;
  for (int i = 0; i < deltas; ++i) {
    s.body += R"({"model":"llama3.2","created_at":"2024-07-22T20:23:56.123456789Z",)"
              R"("message":{"role":"assistant","content":")" +
              std::string(fragment(i).json) + R"("},"done":false})" + "\n";
    s.texts.emplace_back(fragment(i).text);
  }
  s.body += R"({"model":"llama3.2","created_at":"2024-07-22T20:23:57.583456789Z",)"
            R"("message":{"role":"assistant","content":""},"done_reason":"stop","done":true,)"
            R"("total_duration":4883583458,"load_duration":1334875,"prompt_eval_count":26,)"
            R"("prompt_eval_duration":342546000,"eval_count":282,"eval_duration":4535599000})"
            "\n";
  s.events = static_cast<size_t>(deltas) + 1;
  return s;
}

// Every event ends with a blank line (SSE) or a newline (NDJSON).
std::vector<std::string> per_event(const std::string& body, Vendor vendor) {
  const std::string end = vendor == Vendor::ollama ? "\n" : "\n\n";
  std::vector<std::string> pieces;
  size_t start = 0;
  while (start < body.size()) {
    size_t at = body.find(end, start);
    size_t stop = at == std::string::npos ? body.size() : at + end.size();
    pieces.push_back(body.substr(start, stop - start));
    start = stop;
  }
  return pieces;
}

}  // namespace

const char* vendor_name(Vendor vendor) {
  switch (vendor) {
    case Vendor::openai:
      return "openai";
    case Vendor::anthropic:
      return "anthropic";
    case Vendor::ollama:
      return "ollama";
  }
  return "?";
}

const char* split_name(Split split) {
  switch (split) {
    case Split::per_event:
      return "per-event";
    case Split::awkward:
      return "awkward";
    case Split::whole:
      return "whole";
  }
  return "?";
}

RecordedStream recorded_stream(Vendor vendor, int deltas) {
  switch (vendor) {
    case Vendor::openai:
      return openai_stream(deltas);
    case Vendor::anthropic:
      return anthropic_stream(deltas);
    case Vendor::ollama:
      return ollama_stream(deltas);
  }
  return {};
}

std::vector<std::string> split_body(const RecordedStream& stream, Vendor vendor, Split split) {
  if (split == Split::whole) return {stream.body};
  if (split == Split::per_event) return per_event(stream.body, vendor);
  std::vector<std::string> pieces;
  uint32_t state = 12345;  // fixed seed: the same cuts every run
  for (size_t at = 0; at < stream.body.size();) {
    state = state * 1103515245u + 12345u;
    size_t size = 1 + (state >> 16) % 61;
    pieces.push_back(stream.body.substr(at, size));
    at += size;
  }
  return pieces;
}

}  // namespace agentrt::bench
