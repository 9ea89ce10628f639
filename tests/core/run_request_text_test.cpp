// A run request read straight from its text must be exactly what parsing the body and
// parse_run_request give, or be declined (and then go that way). Compared on the
// common shapes, on bodies it must decline, and on 60,000 mutations of them.
#include "core/runs/run_request_text.h"
#include "core/domain/errors.h"
#include "core/domain/json_text.h"
#include "core/runs/context_window.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace agentrt::core {
namespace {

std::string content_of(const StoredMessage& message) {
  if (!message.content_text.empty()) return message.content_text.str();
  std::string text;
  append_json_value(text, message.content);
  return text;
}

std::optional<RunRequest> general_reading(const std::string& body) {
  try {
    return parse_run_request(nlohmann::json::parse(body));
  } catch (const nlohmann::json::exception&) {
  } catch (const DomainError&) {
  }
  return std::nullopt;
}

bool same_bits(const std::optional<double>& a, const std::optional<double>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || std::memcmp(&*a, &*b, sizeof(double)) == 0;
}

// Whether the plain reading took `body`; when it did, it must equal the general one.
bool read_alike(const std::string& body) {
  std::optional<RunRequest> plain = read_plain_run_request(body);
  if (!plain) return false;
  std::optional<RunRequest> general = general_reading(body);
  const std::string shown =
      nlohmann::json(body).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  if (!general) {
    ADD_FAILURE() << "read a body the general way refuses: " << shown;
    return true;
  }
  EXPECT_EQ(plain->model, general->model) << shown;
  EXPECT_EQ(plain->agent_id, general->agent_id) << shown;
  EXPECT_EQ(plain->use_memory, general->use_memory) << shown;
  EXPECT_EQ(plain->actor, general->actor) << shown;
  EXPECT_EQ(plain->session_id, general->session_id) << shown;
  EXPECT_EQ(plain->interrupt_if_busy, general->interrupt_if_busy) << shown;
  EXPECT_EQ(plain->max_tokens, general->max_tokens) << shown;
  EXPECT_TRUE(same_bits(plain->temperature, general->temperature)) << shown;
  EXPECT_EQ(plain->messages.size(), general->messages.size()) << shown;
  for (size_t i = 0; i < std::min(plain->messages.size(), general->messages.size()); ++i) {
    EXPECT_EQ(plain->messages[i].role, general->messages[i].role) << shown;
    EXPECT_EQ(content_of(plain->messages[i]), content_of(general->messages[i])) << shown;
    EXPECT_EQ(estimate_tokens(plain->messages[i]), estimate_tokens(general->messages[i])) << shown;
  }
  return true;
}

const std::vector<std::string>& common_bodies() {
  static const std::vector<std::string> bodies = {
      R"({"model":"mock-model","messages":[{"role":"user","content":[{"type":"text","text":"hello"}]}]})",
      R"({"model":"m","session_id":"long","messages":[{"role":"user","content":[{"type":"text","text":"a"}]},{"role":"assistant","content":[{"type":"text","text":"b"}]}]})",
      " {\n  \"messages\" : [ { \"content\" : [ { \"text\" : \"line one\\nline \\\"two\\\"\\t\\\\ "
      "\\/\" ,"
      " \"type\" : \"text\" } ] , \"role\" : \"system\" } ] ,\r\n \"model\" : \"m\" }\n",
      R"({"agent_id":"agt_1","memory":false,"if_busy":"interrupt","max_tokens":512,"temperature":0.7,"actor":"bob","messages":[{"role":"user","content":[{"type":"text","text":"x"},{"type":"text","text":"y"}]}]})",
      R"({"model":"m","if_busy":"reject","temperature":2,"max_tokens":10000000,"memory":true,"messages":[{"role":"user","content":[{"type":"text","text":""}]}]})",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":"
      "\"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80 \\u00e9\\u65e5\\ud83d\\ude00 "
      "\\u0000\\u001f\x7f\"}]}]}",
      R"({"model":"m","temperature":1.5e-1,"session_id":"a.b_c:d-e","messages":[{"role":"user","content":[{"text":"reversed keys","type":"text"}]}]})",
      R"({"model":"m\u006fdel","m\u0065ssages":[{"role":"user","content":[{"type":"text","text":"escaped keys"}]}]})",
  };
  return bodies;
}

TEST(RunRequestText, ReadsTheCommonShapesAsParsingDoes) {
  for (const std::string& body : common_bodies())
    EXPECT_TRUE(read_alike(body)) << "declined: " << body;
  const RunRequest read = *read_plain_run_request(common_bodies()[0]);
  ASSERT_EQ(read.messages.size(), 1u);
  EXPECT_EQ(read.messages[0].content_text.str(), R"([{"text":"hello","type":"text"}])");
  EXPECT_TRUE(read.messages[0].content.is_null()) << "not parsed";
}

TEST(RunRequestText, DeclinesWhatItDoesNotReadAsParsingDoes) {
  const std::string message = R"([{"role":"user","content":[{"type":"text","text":"x"}]}])";
  const std::vector<std::string> declined = {
      R"({"model":"m","messages":[{"role":"user","content":[{"type":"image_url","url":"https://x/y.png"}]}]})",
      R"({"model":"m","actor":null,"messages":)" + message + "}",
      R"({"model":"m","model":"n","messages":)" + message + "}",
      R"({"model":"m","tools":[],"messages":)" + message + "}",
      R"({"model":"m","messages":[]})",
      R"({"model":"m"})",
      R"({"model":"","messages":)" + message + "}",
      R"({"model":"m","messages":[{"role":"robot","content":[{"type":"text","text":"x"}]}]})",
      R"({"model":"m","messages":[{"role":"user","content":[]}]})",
      R"({"model":"m","messages":[{"role":"user","name":"a","content":[{"type":"text","text":"x"}]}]})",
      R"({"model":"m","max_tokens":1.0,"messages":)" + message + "}",
      R"({"model":"m","max_tokens":0,"messages":)" + message + "}",
      R"({"model":"m","temperature":-0,"messages":)" + message + "}",
      R"({"model":"m","temperature":2.5,"messages":)" + message + "}",
      R"({"model":"m","temperature":1e999,"messages":)" + message + "}",
      R"({"model":"m","session_id":"has space","messages":)" + message + "}",
      R"({"model":"m","if_busy":"wait","messages":)" + message + "}",
      "\xef\xbb\xbf{\"model\":\"m\",\"messages\":" + message + "}",
      R"({"model":"m","messages":)" + message + "} x",
      "{\"model\":\"m\xff\",\"messages\":" + message + "}",
      R"({"model":"\ud800","messages":)" + message + "}",
      "{\"model\":\"a\tb\",\"messages\":" + message + "}",
  };
  for (const std::string& body : declined) {
    EXPECT_FALSE(read_plain_run_request(body)) << body;
  }
}

// Replaced, inserted and deleted bytes, drawn mostly from those that change JSON's
// meaning; the plain reading of each mutant must equal the general one or decline.
TEST(RunRequestText, MutatedBodiesReadAsParsingReadsThemOrAreDeclined) {
  static const std::string kBytes =
      "{}[]:,\" \\/ntu0123456789abcdefABCDEF.-+eE\x01\x7f\xc3\xa9\xed\xff";
  std::mt19937 random(20261126);
  int read = 0, mutants = 0;
  for (const std::string& seed : common_bodies()) {
    for (int n = 0; n < 7500; ++n) {
      std::string body = seed;
      const int edits = 1 + static_cast<int>(random() % 3);
      for (int e = 0; e < edits && !body.empty(); ++e) {
        const size_t at = random() % body.size();
        const char byte = kBytes[random() % kBytes.size()];
        switch (random() % 3) {
          case 0:
            body[at] = byte;
            break;
          case 1:
            body.insert(body.begin() + static_cast<std::ptrdiff_t>(at), byte);
            break;
          default:
            body.erase(at, 1);
        }
      }
      ++mutants;
      read += read_alike(body) ? 1 : 0;
      if (HasFailure()) return;
    }
  }
  EXPECT_GT(read, mutants / 20) << "the mutants read plainly: " << read << " of " << mutants;
}

}  // namespace
}  // namespace agentrt::core
