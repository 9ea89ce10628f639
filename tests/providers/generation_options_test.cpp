// The generation options of ABI 1.10 (top_p, penalties, seed, stop, parallel_tool_calls):
// each vendor's body carries those its vendor has, under the vendor's own names, and
// none when the engine's request sets none.
#include "anthropic/anthropic_request.h"
#include "common/chat_request.h"
#include "ollama/ollama_request.h"
#include "openai/openai_request.h"

#include <gtest/gtest.h>
#include <agentrt/plugin.hpp>
#include <nlohmann/json.hpp>

#include <string>

namespace agentrt::providers::generation_options_test {

using nlohmann::json;

json request_with(json extra) {
  json request = {
      {"model", "m"},
      {"messages", {{{"role", "user"}, {"content", {{{"type", "text"}, {"text", "hi"}}}}}}}};
  request.update(extra);
  return request;
}

const json kAll = {{"top_p", 0.5},
                   {"presence_penalty", 0.25},
                   {"frequency_penalty", -1.5},
                   {"seed", 42},
                   {"stop", {"END", "\n\n"}},
                   {"parallel_tool_calls", false},
                   {"tools", {{{"name", "f"}, {"parameters", {{"type", "object"}}}}}}};

TEST(GenerationOptions, OpenAiGetsEveryOneUnderItsOwnName) {
  const ChatRequest chat = parse_chat_request(request_with(kAll).dump());
  const std::string body = openai::request_body(chat);
  EXPECT_EQ(body, json::parse(body).dump()) << "sorted keys, what dump writes";
  const json sent = json::parse(body);
  EXPECT_EQ(sent["top_p"], 0.5);
  EXPECT_EQ(sent["presence_penalty"], 0.25);
  EXPECT_EQ(sent["frequency_penalty"], -1.5);
  EXPECT_EQ(sent["seed"], 42);
  EXPECT_EQ(sent["stop"], json({"END", "\n\n"}));
  EXPECT_EQ(sent["parallel_tool_calls"], false);
}

TEST(GenerationOptions, AnthropicGetsTopPStopSequencesAndOneCallAtATime) {
  const ChatRequest chat = parse_chat_request(request_with(kAll).dump());
  const std::string body = anthropic::request_body(chat);
  EXPECT_EQ(body, json::parse(body).dump());
  const json sent = json::parse(body);
  EXPECT_EQ(sent["top_p"], 0.5);
  EXPECT_EQ(sent["stop_sequences"], json({"END", "\n\n"}));
  EXPECT_EQ(sent["tool_choice"], json({{"disable_parallel_tool_use", true}, {"type", "auto"}}));
  for (const char* absent : {"seed", "presence_penalty", "frequency_penalty", "stop"})
    EXPECT_FALSE(sent.contains(absent)) << absent;
  // A chosen tool keeps its choice; "none" has no such flag.
  json named = kAll;
  named["tool_choice"] = {{"type", "tool"}, {"name", "f"}};
  EXPECT_EQ(json::parse(anthropic::request_body(
                parse_chat_request(request_with(named).dump())))["tool_choice"],
            json({{"disable_parallel_tool_use", true}, {"name", "f"}, {"type", "tool"}}));
  named["tool_choice"] = "none";
  EXPECT_EQ(json::parse(anthropic::request_body(
                parse_chat_request(request_with(named).dump())))["tool_choice"],
            json({{"type", "none"}}));
}

TEST(GenerationOptions, OllamaGetsThemInItsOptions) {
  const ChatRequest chat = parse_chat_request(request_with(kAll).dump());
  const std::string body = ollama::request_body(chat);
  EXPECT_EQ(body, json::parse(body).dump());
  const json options = json::parse(body)["options"];
  EXPECT_EQ(options, json({{"frequency_penalty", -1.5},
                           {"presence_penalty", 0.25},
                           {"seed", 42},
                           {"stop", {"END", "\n\n"}},
                           {"top_p", 0.5}}));
}

TEST(GenerationOptions, NoneSetSendsNone) {
  const ChatRequest chat = parse_chat_request(request_with(json::object()).dump());
  for (const char* key : {"top_p", "presence_penalty", "frequency_penalty", "seed", "stop",
                          "parallel_tool_calls", "stop_sequences", "options"}) {
    EXPECT_FALSE(json::parse(openai::request_body(chat)).contains(key)) << key;
    EXPECT_FALSE(json::parse(anthropic::request_body(chat)).contains(key)) << key;
    EXPECT_FALSE(json::parse(ollama::request_body(chat)).contains(key)) << key;
  }
  // parallel_tool_calls goes only beside tools: the vendors refuse it alone.
  const ChatRequest lone = parse_chat_request(request_with({{"parallel_tool_calls", true}}).dump());
  EXPECT_FALSE(json::parse(openai::request_body(lone)).contains("parallel_tool_calls"));
  EXPECT_FALSE(json::parse(anthropic::request_body(lone)).contains("tool_choice"));
}

TEST(GenerationOptions, AWrongTypeIsRefused) {
  for (const json& wrong : {json{{"top_p", "high"}}, json{{"seed", 1.5}}, json{{"stop", "END"}},
                            json{{"stop", {1}}}, json{{"parallel_tool_calls", "yes"}}}) {
    EXPECT_THROW(parse_chat_request(request_with(wrong).dump()), sdk::Error) << wrong.dump();
  }
}

}  // namespace agentrt::providers::generation_options_test
