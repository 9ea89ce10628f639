// The request the engine gives a provider plugin: what nlohmann dumps for the same
// document, whether a message comes from the store (its content's text as stored) or
// from the request (its content as parsed), for every role.
#include "core/runs/provider_request.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentrt::core {
namespace {

using nlohmann::json;

json text_content(const std::string& text) {
  return json::array({{{"text", text}, {"type", "text"}}});
}

StoredMessage stored(const std::string& role, const json& content) {
  StoredMessage m;
  m.role = role;
  m.content_text = content.dump();
  return m;
}

TEST(ProviderRequest, IsWhatDumpWritesForStoredAndNewMessagesOfEveryRole) {
  const std::string awkward = "caf\xc3\xa9 \"q\" \\ \n\x01";
  const json image = {{"image_url", {{"url", "data:image/png;base64,AAAA"}}},
                      {"type", "image_url"}};
  RunContext context;
  context.system = {stored("system", text_content("be brief"))};
  context.history = std::vector<StoredMessage>{
      stored("user", text_content(awkward)), stored("assistant", text_content("")),
      stored("user", json::array({text_content("a")[0], image})),
      stored("assistant", text_content("one"))};
  context.history = context.history.without_first(1).without_first(0);
  context.fresh = {stored("user", text_content(awkward)),
                   stored("assistant", json::array({text_content("x")[0], text_content("y")[0]})),
                   stored("tool\"s", text_content("an unknown role is escaped"))};
  json messages = json::array();
  context.each([&](const StoredMessage& m) {
    const json content = json::parse(m.content_text.str());
    messages.push_back({{"content", content}, {"role", m.role}});
  });
  ASSERT_EQ(messages.size(), 7u);
  EXPECT_EQ(messages[1]["role"], "assistant") << "the span's first message was not left out";
  EXPECT_EQ(
      provider_request(context, "m-1", 64, 0.5),
      json({{"max_tokens", 64}, {"messages", messages}, {"model", "m-1"}, {"temperature", 0.5}})
          .dump());
  EXPECT_EQ(provider_request(context, "m-1", std::nullopt, std::nullopt),
            json({{"messages", messages}, {"model", "m-1"}}).dump());
  EXPECT_EQ(provider_request({}, "m", std::nullopt, std::nullopt),
            R"({"messages":[],"model":"m"})");
}

// The generation options (ABI 1.10) go in their sorted places, each only when set, and
// parallel_tool_calls only beside tools; without them (an older plugin) none goes.
TEST(ProviderRequest, CarriesTheGenerationOptionsThatAreSet) {
  RunContext context;
  context.fresh = {stored("user", text_content("hi"))};
  const json messages = {{{"content", text_content("hi")}, {"role", "user"}}};
  GenerationOptions options;
  options.top_p = 0.5;
  options.presence_penalty = 0.25;
  options.frequency_penalty = -1.0;
  options.seed = 7;
  options.stop = {"END", "\n"};
  options.parallel_tool_calls = false;
  const std::vector<ToolSpec> tools = {{"f", "", R"({"type":"object"})"}};
  const json with_tools = {
      {"frequency_penalty", -1.0},
      {"messages", messages},
      {"model", "m"},
      {"parallel_tool_calls", false},
      {"presence_penalty", 0.25},
      {"seed", 7},
      {"stop", {"END", "\n"}},
      {"tool_choice", "auto"},
      {"tools", {{{"name", "f"}, {"parameters", {{"type", "object"}}}, {"type", "function"}}}},
      {"top_p", 0.5}};
  EXPECT_EQ(provider_request(context, "m", std::nullopt, std::nullopt, true,
                             ToolOffer{&tools, ToolChoice{}, true}, &options),
            with_tools.dump());
  json without_tools = with_tools;
  for (const char* key : {"parallel_tool_calls", "tool_choice", "tools"}) without_tools.erase(key);
  EXPECT_EQ(provider_request(context, "m", std::nullopt, std::nullopt, true, {}, &options),
            without_tools.dump());
  EXPECT_EQ(provider_request(context, "m", std::nullopt, std::nullopt, true, {}, nullptr),
            json({{"messages", messages}, {"model", "m"}}).dump());
  const GenerationOptions none;
  EXPECT_EQ(provider_request(context, "m", std::nullopt, std::nullopt, true, {}, &none),
            json({{"messages", messages}, {"model", "m"}}).dump());
}

// A session's earlier image must not go upstream to a model without vision, which a new
// message with one is refused for: such models answer 400 to image parts, and every later
// run of the session would fail.
TEST(ProviderRequest, AModelWithoutVisionIsToldOfAnEarlierImageInsteadOfSentIt) {
  const json image = {{"image_url", {{"url", "data:image/png;base64,AAAA"}}},
                      {"type", "image_url"}};
  StoredMessage with_image = stored("user", json::array({text_content("look")[0], image}));
  StoredMessage plain = stored("user", text_content("\"type\":\"image_url\""));
  estimate_stored(with_image);
  estimate_stored(plain);
  EXPECT_TRUE(with_image.has_image);
  EXPECT_FALSE(plain.has_image) << "an image's words in a text are no image";
  RunContext context;
  context.history = std::vector<StoredMessage>{with_image, plain};
  const json sent = json::parse(provider_request(context, "m", std::nullopt, std::nullopt, false));
  EXPECT_EQ(sent["messages"][0]["content"],
            json::array({text_content("look")[0], text_content(kImageLeftOut)[0]}));
  EXPECT_EQ(sent["messages"][1]["content"], json::parse(plain.content_text.str()));
  const json with_vision = json::parse(provider_request(context, "m", std::nullopt, std::nullopt));
  EXPECT_EQ(with_vision["messages"][0]["content"][1], image);
}

}  // namespace
}  // namespace agentrt::core
