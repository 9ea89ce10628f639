// Calls to agentd's OpenAI-compatible surface (docs/openai-compatible.md) for the API
// tests: request bodies, the error shape every /v1 path answers with, and a stream read
// to its "data: [DONE]".
#pragma once

#include "tests/api/conversation_client.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentrt::test {

inline nlohmann::json openai_body(const std::string& model, const std::string& text,
                                  nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json body = {{"model", model}, {"messages", {{{"role", "user"}, {"content", text}}}}};
  body.update(extra);
  return body;
}

// Whether `response` is OpenAI's error shape with `status`, `type` and `param` (empty:
// null); a failure message says what it was instead.
inline ::testing::AssertionResult openai_error(const HttpResponse& response, int status,
                                               const std::string& type,
                                               const std::string& param = "") {
  if (response.status != status)
    return ::testing::AssertionFailure() << "status " << response.status << ": " << response.body;
  const nlohmann::json body = nlohmann::json::parse(response.body, nullptr, false);
  const nlohmann::json& error = body.is_object() ? body.value("error", nlohmann::json()) : body;
  if (!error.is_object() || error.size() != 4 || !error["message"].is_string() ||
      !error.contains("param") || !error.contains("code") || !error.contains("type"))
    return ::testing::AssertionFailure() << "not OpenAI's error shape: " << response.body;
  if (error["type"] != type)
    return ::testing::AssertionFailure() << "type " << error["type"] << ": " << response.body;
  const nlohmann::json expected = param.empty() ? nlohmann::json() : nlohmann::json(param);
  if (error["param"] != expected)
    return ::testing::AssertionFailure() << "param " << error["param"] << ": " << response.body;
  return ::testing::AssertionSuccess();
}

// A streamed call: the status, and each event's data to "[DONE]" (which is the last).
struct OpenAiStream {
  int status = 0;
  std::string error_body;  // when the status is not 200
  std::vector<nlohmann::json> chunks;
  bool done = false;  // "data: [DONE]" ended it
};

inline OpenAiStream openai_stream(const AgentdProcess& agentd, const std::string& token,
                                  const nlohmann::json& body,
                                  const std::string& path = "/v1/chat/completions") {
  SseClient client(agentd.port(), "POST", path,
                   {{"Authorization", "Bearer " + token}, {"Content-Type", "application/json"}},
                   body.dump());
  OpenAiStream stream;
  stream.status = client.status();
  if (stream.status != 200) {
    stream.error_body = client.error_body();
    stream.error_body.erase(0, stream.error_body.find('{'));
    return stream;
  }
  while (auto data = client.next_data(std::chrono::seconds(20))) {
    if (*data == "[DONE]") {
      stream.done = true;
      EXPECT_FALSE(client.next_data(std::chrono::seconds(5))) << "an event after [DONE]";
      break;
    }
    stream.chunks.push_back(nlohmann::json::parse(*data));
  }
  return stream;
}

// The content deltas of a stream, joined.
inline std::string streamed_text(const OpenAiStream& stream) {
  std::string text;
  for (const nlohmann::json& chunk : stream.chunks)
    if (chunk.contains("choices") && !chunk["choices"].empty() &&
        chunk["choices"][0]["delta"].contains("content"))
      text += chunk["choices"][0]["delta"]["content"].get<std::string>();
  return text;
}

// The run a completion id names: chatcmpl-<hex> is run_<hex>.
inline std::string run_of(const std::string& completion_id) {
  return "run_" + completion_id.substr(std::string("chatcmpl-").size());
}

}  // namespace agentrt::test
