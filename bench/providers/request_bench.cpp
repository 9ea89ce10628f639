#include "request_bench.h"

#include "counting_sink.h"
#include "recorded_streams.h"

#include "anthropic/anthropic_request.h"
#include "common/chat_request.h"
#include "ollama/ollama_request.h"
#include "openai/openai_request.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace agentrt::bench {
namespace {

// Text as a model writes it and a person answers: paragraphs, a quotation, an
// apostrophe, letters past ASCII, a dash and quotes past ASCII, a line of code. The
// same five pieces in each script, so that only the letters' bytes differ.
const char* const* pieces_of(HistoryText text) {
  static const char* const kLatin[] = {
      "The café's menu changed again, so we rewrote the \"daily special\" section.\n",
      "Here is the function you asked for:\n    if (x < 0) { return \"negative\\n\"; }\n",
      "Größe und Maße — both are fine; résumé keeps its accents.\n\n",
      "She said “it works” and moved on; the test still fails on line 42.\t\n",
      "Plain sentences make up most of any answer, one after another, with commas. ",
  };
  static const char* const kCyrillic[] = {
      "Меню кафе снова изменилось, поэтому мы переписали раздел «блюдо дня».\n",
      "Вот функция, которую вы просили:\n    if (x < 0) { return \"negative\\n\"; }\n",
      "Размер и мера — оба подходят; резюме сохраняет ударения.\n\n",
      "Она сказала «работает» и пошла дальше; тест всё ещё падает на строке 42.\t\n",
      "Простые предложения составляют большую часть ответа, одно за другим, с запятыми. ",
  };
  static const char* const kCjk[] = {
      "咖啡馆的菜单又变了，所以我们重写了“每日特餐”部分。\n",
      "这是你要的函数：\n    if (x < 0) { return \"negative\\n\"; }\n",
      "大小和尺寸——两者都可以；简历保留了重音。\n\n",
      "她说“可以了”然后继续；测试仍然在第42行失败。\t\n",
      "简单的句子构成了任何回答的大部分，一句接一句，带着逗号。",
  };
  return text == HistoryText::cyrillic ? kCyrillic : text == HistoryText::cjk ? kCjk : kLatin;
}

std::string prose_of(HistoryText kind, size_t bytes, int index) {
  const char* const* pieces = pieces_of(kind);
  std::string text;
  for (int i = index; text.size() < bytes; ++i) text += pieces[i % 5];
  return text;
}

std::string engine_request(int messages, int bytes, HistoryText kind) {
  std::string text = R"({"messages":[)";
  for (int i = 0; i < messages; ++i) {
    if (i > 0) text += ',';
    std::string words = kind == HistoryText::plain
                            ? "message " + std::to_string(i) + " of the history"
                            : prose_of(kind, static_cast<size_t>(bytes), i);
    nlohmann::json content = nlohmann::json::array({{{"type", "text"}, {"text", words}}});
    text += R"({"content":)" + content.dump() + R"(,"role":")" +
            (i % 2 == 0 ? "user" : "assistant") + "\"}";
  }
  return text + R"(],"model":"bench-model"})";
}

std::string body_of(Vendor vendor, const providers::ChatRequest& chat) {
  switch (vendor) {
    case Vendor::openai:
      return providers::openai::request_body(chat);
    case Vendor::anthropic:
      return providers::anthropic::request_body(chat);
    case Vendor::ollama:
      return providers::ollama::request_body(chat);
  }
  return {};
}

}  // namespace

void run_request_bench(int messages, int bytes, HistoryText text, double seconds, int reps) {
  const std::string request = engine_request(messages, bytes, text);
  const providers::ChatRequest chat = providers::parse_chat_request(request);
  if (chat.messages.size() != static_cast<size_t>(messages)) {
    std::fprintf(stderr, "the engine's request was not read whole\n");
    std::exit(1);
  }
  std::printf(
      "| vendor | messages | request bytes | read ns | write ns | read ns/message "
      "| write ns/message |\n|---|---:|---:|---:|---:|---:|---:|\n");
  for (Vendor vendor : {Vendor::openai, Vendor::anthropic, Vendor::ollama}) {
    size_t sink = 0;
    const double read =
        cpu_ns_per_call([&] { sink += providers::parse_chat_request(request).messages.size(); },
                        seconds, reps)
            .median;
    const double write =
        cpu_ns_per_call([&] { sink += body_of(vendor, chat).size(); }, seconds, reps).median;
    if (sink == 0) std::exit(1);
    std::printf("| %s | %d | %zu | %.0f | %.0f | %.0f | %.0f |\n", vendor_name(vendor), messages,
                request.size(), read, write, read / messages, write / messages);
    std::fflush(stdout);
  }
}

}  // namespace agentrt::bench
