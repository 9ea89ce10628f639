// core/openai: a Chat Completions body read into the stateless run it asks for (each
// message in the store's form, one for one), and a run's summary and events written as
// OpenAI's chat.completion and chat.completion.chunk.
#include "core/openai/chat_completion_request.h"
#include "core/openai/chat_completion_response.h"
#include "core/openai/openai_fields.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace agentrt::core::openai::translation_test {

using nlohmann::json;

json content_of(const StoredMessage& message) {
  return json::parse(message.content_text.str());
}

TEST(OpenAiTranslation, MessagesBecomeStoredMessagesOneForOne) {
  const json call = {{"id", "call_1"},
                     {"type", "function"},
                     {"function", {{"name", "get_weather"}, {"arguments", R"({"city":"Oslo"})"}}}};
  const json body = {
      {"model", "m"},
      {"messages",
       {{{"role", "developer"}, {"content", "Be brief."}},
        {{"role", "user"},
         {"content",
          {{{"type", "text"}, {"text", "see"}},
           {{"type", "image_url"},
            {"image_url", {{"url", "HTTPS://x.test/a.png"}, {"detail", "low"}}}}}}},
        {{"role", "assistant"}, {"content", ""}, {"tool_calls", {call}}},
        {{"role", "tool"},
         {"tool_call_id", "call_1"},
         {"content", {{{"type", "text"}, {"text", "sunny"}}}}},
        {{"role", "assistant"}, {"content", {{{"type", "text"}, {"text", "It is sunny."}}}}}}}};
  const ChatCompletionRequest request = parse_chat_completion(body.dump());
  EXPECT_TRUE(request.run.stateless);
  EXPECT_FALSE(request.run.use_memory);
  const std::vector<StoredMessage>& messages = request.run.messages;
  ASSERT_EQ(messages.size(), 5u);
  EXPECT_EQ(messages[0].role, "system");
  EXPECT_EQ(content_of(messages[0]), json({{{"text", "Be brief."}, {"type", "text"}}}));
  EXPECT_EQ(content_of(messages[1]),
            json({{{"text", "see"}, {"type", "text"}},
                  {{"type", "image_url"}, {"url", "https://x.test/a.png"}}}));
  EXPECT_TRUE(messages[1].has_image);
  EXPECT_EQ(content_of(messages[2]), json({{{"arguments", R"({"city":"Oslo"})"},
                                            {"id", "call_1"},
                                            {"name", "get_weather"},
                                            {"type", "tool_call"}}}))
      << "an empty text beside calls is dropped";
  EXPECT_TRUE(messages[2].has_tool_parts);
  EXPECT_EQ(messages[3].role, "tool");
  EXPECT_EQ(content_of(messages[3]), json({{{"is_error", false},
                                            {"output", "sunny"},
                                            {"tool_call_id", "call_1"},
                                            {"type", "tool_result"}}}));
  EXPECT_EQ(content_of(messages[4]), json({{{"text", "It is sunny."}, {"type", "text"}}}));
  for (const StoredMessage& m : messages) {
    EXPECT_EQ(m.content_text.str(), content_of(m).dump()) << "the store's form: dump's text";
    EXPECT_GT(m.tokens, 0);
  }
}

TEST(OpenAiTranslation, ParametersAndTools) {
  const json body = {{"model", "m"},
                     {"messages", {{{"role", "user"}, {"content", "x"}}}},
                     {"max_tokens", 10},
                     {"max_completion_tokens", 20},
                     {"temperature", 0.5},
                     {"top_p", 1},
                     {"stop", "END"},
                     {"seed", 3.0},
                     {"stream", true},
                     {"stream_options", {{"include_usage", true}}},
                     {"user", "alice"},
                     {"tools",
                      {{{"type", "function"},
                        {"function",
                         {{"name", "f"},
                          {"strict", true},
                          {"parameters",
                           {{"type", "object"},
                            {"properties", {{"b", json::object()}, {"a", json::object()}}}}}}}}}},
                     {"tool_choice", {{"type", "function"}, {"function", {{"name", "f"}}}}},
                     {"parallel_tool_calls", true}};
  const ChatCompletionRequest request = parse_chat_completion(body.dump());
  EXPECT_EQ(request.run.max_tokens.value_or(-1), 20) << "max_completion_tokens wins";
  EXPECT_EQ(request.run.temperature.value_or(-1), 0.5);
  EXPECT_EQ(request.run.generation.top_p.value_or(-1), 1.0);
  EXPECT_EQ(request.run.generation.stop, std::vector<std::string>{"END"});
  EXPECT_EQ(request.run.generation.seed.value_or(-1), 3);
  EXPECT_EQ(request.run.generation.parallel_tool_calls.value_or(false), true);
  EXPECT_TRUE(request.stream);
  EXPECT_TRUE(request.include_usage);
  EXPECT_EQ(request.user.value_or(""), "alice");
  ASSERT_EQ(request.run.tools.size(), 1u);
  EXPECT_EQ(request.run.tools[0].name, "f");
  EXPECT_EQ(json::parse(request.run.tools[0].parameters)["type"], "object");
  ASSERT_TRUE(request.run.tool_choice);
  EXPECT_EQ(request.run.tool_choice->mode, "tool");
  EXPECT_EQ(request.run.tool_choice->name, "f");
  EXPECT_FALSE(request.run.actor) << "the actor is the caller's to choose from user";
}

TEST(OpenAiTranslation, ARefusalNamesOpenAisField) {
  const auto param_for = [](const json& body) {
    try {
      parse_chat_completion(body.dump());
    } catch (const DomainError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::invalid);
      return param_of(e);
    }
    return std::string("(accepted)");
  };
  const json user = {{"role", "user"}, {"content", "x"}};
  EXPECT_EQ(param_for({{"messages", {user}}}), "model");
  EXPECT_EQ(param_for({{"model", "m"}, {"messages", {user}}, {"top_p", -1}}), "top_p");
  EXPECT_EQ(
      param_for({{"model", "m"},
                 {"messages", {user, {{"role", "user"}, {"content", {{{"type", "file"}}}}}}}}),
      "messages[1].content[0].type");
  // agentrt's own refusals name their field in the message.
  EXPECT_EQ(param_of(invalid("field 'messages[2].content' has an image_url part")),
            "messages[2].content");
  EXPECT_EQ(param_of(invalid("no field here")), "");
}

RunSummary summary_of(std::string text, std::string reason) {
  RunSummary summary;
  summary.text = std::move(text);
  summary.reason = std::move(reason);
  summary.input_tokens = 7;
  summary.output_tokens = 3;
  return summary;
}

TEST(OpenAiTranslation, TheCompletionObject) {
  const CompletionHead head{completion_id("run_0123abc"), "m", 1700000000, false};
  EXPECT_EQ(head.id, "chatcmpl-0123abc");
  RunSummary called = summary_of("", "tool_use");
  called.tool_calls = {{"call_1", "f", "{}"}};
  const json answer = json::parse(completion_text(head, called));
  EXPECT_EQ(answer["object"], "chat.completion");
  EXPECT_EQ(answer["created"], 1700000000);
  EXPECT_EQ(answer["choices"][0]["finish_reason"], "tool_calls");
  EXPECT_TRUE(answer["choices"][0]["message"]["content"].is_null());
  EXPECT_EQ(answer["choices"][0]["message"]["tool_calls"],
            json({{{"function", {{"arguments", "{}"}, {"name", "f"}}},
                   {"id", "call_1"},
                   {"type", "function"}}}));
  EXPECT_EQ(answer["usage"],
            json({{"completion_tokens", 3}, {"prompt_tokens", 7}, {"total_tokens", 10}}));
  EXPECT_EQ(finish_reason(summary_of("x", "max_tokens")), "length");
  RunSummary filtered = summary_of("", "end_turn");
  filtered.provider_reason = "content_filter";
  EXPECT_EQ(finish_reason(filtered), "content_filter");
  EXPECT_EQ(json::parse(completion_text(
                head, summary_of("", "end_turn")))["choices"][0]["message"]["content"],
            "");
}

class Recording : public RunSink {
 public:
  bool send(const std::string& event) override {
    events.push_back(event);
    return true;
  }
  std::vector<std::string> events;
};

TEST(OpenAiTranslation, ChunksFromEvents) {
  Recording out;
  ChunkSink sink(out, {"chatcmpl-1", "m", 5, true}, {});
  EXPECT_TRUE(sink.send(R"({"model":"m","run_id":"run_1","seq":1,"type":"run_start"})"));
  EXPECT_FALSE(sink.started()) << "run_start sends nothing";
  EXPECT_TRUE(sink.send(R"({"content":"Hi","seq":2,"type":"stream_delta"})"));
  EXPECT_TRUE(sink.send(
      R"({"arguments":"{}","call_id":"c1","executor":"client","name":"f","seq":3,"type":"tool_call"})"));
  sink.finish(summary_of("Hi", "tool_use"));
  ASSERT_EQ(out.events.size(), 6u);
  EXPECT_EQ(json::parse(out.events[0])["choices"][0]["delta"]["role"], "assistant");
  EXPECT_EQ(json::parse(out.events[1])["choices"][0]["delta"], json({{"content", "Hi"}}));
  EXPECT_EQ(json::parse(out.events[2])["choices"][0]["delta"]["tool_calls"][0],
            json({{"function", {{"arguments", "{}"}, {"name", "f"}}},
                  {"id", "c1"},
                  {"index", 0},
                  {"type", "function"}}));
  EXPECT_EQ(json::parse(out.events[3])["choices"][0]["finish_reason"], "tool_calls");
  EXPECT_EQ(json::parse(out.events[4])["choices"], json::array());
  EXPECT_EQ(json::parse(out.events[4])["usage"]["total_tokens"], 10);
  EXPECT_EQ(out.events[5], "[DONE]");

  Recording failed_out;
  ChunkSink failing(failed_out, {"chatcmpl-2", "m", 5, false}, {});
  failing.send(R"({"content":"par","seq":2,"type":"stream_delta"})");
  RunSummary failed = summary_of("par", "error");
  failed.failed = true;
  failed.error_code = "provider_error";
  failed.error_message = "upstream broke";
  failing.finish(failed);
  ASSERT_EQ(failed_out.events.size(), 4u);
  EXPECT_EQ(json::parse(failed_out.events[2]), json({{"error",
                                                      {{"code", "provider_error"},
                                                       {"message", "upstream broke"},
                                                       {"param", nullptr},
                                                       {"type", "server_error"}}}}));
  EXPECT_EQ(failed_out.events[3], "[DONE]");

  // An upstream's rate limit says so.
  failed.upstream_status = 429;
  EXPECT_EQ(failure_code(failed), "rate_limit_exceeded");
  EXPECT_STREQ(stream_error_type(failure_code(failed)), "rate_limit_error");
  failed.upstream_status = 500;
  EXPECT_EQ(failure_code(failed), "provider_error");
}

}  // namespace agentrt::core::openai::translation_test
