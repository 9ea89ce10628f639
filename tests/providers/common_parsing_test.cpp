// The shared pieces of plugins/common, tested directly: framing that must survive
// any chunking, retry delays, error mapping and redaction, data URLs.
#include "common/data_url.h"
#include "common/error_mapping.h"
#include "common/line_splitter.h"
#include "common/retry_after.h"
#include "common/sse_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentrt::providers {
namespace {

std::vector<std::string> lines_of(const std::vector<std::string>& pieces, bool cr_ends_line) {
  LineSplitter splitter(cr_ends_line);
  std::vector<std::string> lines;
  for (const std::string& piece : pieces)
    splitter.feed(piece, [&](std::string_view line) { lines.emplace_back(line); });
  return lines;
}

TEST(LineSplitter, HandlesLfCrlfAndLoneCrWhenAsked) {
  EXPECT_EQ(lines_of({"a\nb\r\nc\rd\n"}, true), (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(lines_of({"a\nb\r\nc\rd\n"}, false), (std::vector<std::string>{"a", "b", "c\rd"}));
}

TEST(LineSplitter, ACrlfSplitBetweenPiecesIsOneLineEnd) {
  EXPECT_EQ(lines_of({"one\r", "\ntwo\r", "", "\n", "\n"}, true),
            (std::vector<std::string>{"one", "two", ""}));
  EXPECT_EQ(lines_of({"one\r", "\ntwo\n"}, false), (std::vector<std::string>{"one", "two"}));
}

TEST(LineSplitter, KeepsAPartialLineUntilItEnds) {
  LineSplitter splitter(false);
  std::vector<std::string> lines;
  auto collect = [&](std::string_view line) { lines.emplace_back(line); };
  splitter.feed("{\"a\":\"\xF0\x9F", collect);
  EXPECT_TRUE(lines.empty());
  EXPECT_TRUE(splitter.has_partial_line());
  splitter.feed("\x8C\x8D\"}\n", collect);
  EXPECT_EQ(lines, (std::vector<std::string>{"{\"a\":\"\xF0\x9F\x8C\x8D\"}"}));
  EXPECT_FALSE(splitter.has_partial_line());
}

std::vector<SseEvent> events_of(const std::vector<std::string>& pieces, bool finish = false) {
  SseParser parser;
  std::vector<SseEvent> events;
  auto collect = [&](const SseEvent& e) { events.push_back(e); };
  for (const std::string& piece : pieces) parser.feed(piece, collect);
  if (finish) parser.finish(collect);
  return events;
}

const std::string kStream =
    "\xEF\xBB\xBF: a comment\r\n"
    "event: message_start\r\n"
    "data: {\"t\":\"Gr\xC3\xBC\xC3\x9F"
    "e \xF0\x9F\x8C\x8D\"}\r\n"
    "id: 7\r\n"
    "\r\n"
    "data:no-space\n"
    "data:  two spaces\n"
    "data\n"
    "unknown: field\n"
    "\n"
    "event: ping\n"
    "\n"
    "data: [DONE]\r\r";

const std::vector<SseEvent> kEvents = {{"message_start",
                                        "{\"t\":\"Gr\xC3\xBC\xC3\x9F"
                                        "e \xF0\x9F\x8C\x8D\"}"},
                                       {"", "no-space\n two spaces\n"},
                                       {"", "[DONE]"}};

TEST(SseParser, ParsesFieldsCommentsAndMultiLineData) {
  EXPECT_EQ(events_of({kStream}), kEvents);
}

TEST(SseParser, GivesTheSameEventsForEveryCutAndByteByByte) {
  for (size_t cut = 0; cut <= kStream.size(); ++cut)
    ASSERT_EQ(events_of({kStream.substr(0, cut), kStream.substr(cut)}), kEvents) << cut;
  for (size_t a = 1; a < kStream.size(); a += 3)
    for (size_t b = a; b < kStream.size(); b += 5)
      ASSERT_EQ(events_of({kStream.substr(0, a), kStream.substr(a, b - a), kStream.substr(b)}),
                kEvents)
          << a << "," << b;
  std::vector<std::string> bytes;
  for (char c : kStream) bytes.emplace_back(1, c);
  EXPECT_EQ(events_of(bytes), kEvents);
}

TEST(SseParser, FinishDispatchesAWholeEventButDropsAPartialLine) {
  EXPECT_EQ(events_of({"data: [DONE]\n"}, true), (std::vector<SseEvent>{{"", "[DONE]"}}));
  EXPECT_TRUE(events_of({"data: [DO"}, true).empty());
  EXPECT_TRUE(events_of({"data: [DONE]\n"}, false).empty());
}

TEST(RetryAfter, MillisecondsWinThenSecondsThenDates) {
  EXPECT_EQ(retry_after_ms("1500", "7", 0), 1500u);
  EXPECT_EQ(retry_after_ms("12.2", "", 0), 13u);
  EXPECT_EQ(retry_after_ms("", "7", 0), 7000u);
  EXPECT_EQ(retry_after_ms("", " 0.5 ", 0), 500u);
  EXPECT_EQ(retry_after_ms("soon", "2", 0), 2000u);
  // Sun, 06 Nov 1994 08:49:37 GMT is 784111777 in Unix time.
  EXPECT_EQ(retry_after_ms("", "Sun, 06 Nov 1994 08:49:37 GMT", 784111777 - 20), 20000u);
  EXPECT_EQ(retry_after_ms("", "Sun, 06 Nov 1994 08:49:37 GMT", 784111777 + 5), 0u);
}

TEST(RetryAfter, GarbageNegativeAndHugeValues) {
  EXPECT_EQ(retry_after_ms("", "", 0), 0u);
  EXPECT_EQ(retry_after_ms("-5", "-5", 0), 0u);
  EXPECT_EQ(retry_after_ms("", "inf", 0), 0u);
  EXPECT_EQ(retry_after_ms("", "0x10", 0), 0u);
  EXPECT_EQ(retry_after_ms("", "99999999999", 0), 0xFFFFFFFFu);
}

HttpResponse response(long status, HttpHeaders headers = {}) {
  HttpResponse r;
  r.status = status;
  r.headers = std::move(headers);
  return r;
}

TEST(ErrorMapping, StatusesToCodes) {
  const std::vector<std::pair<long, int32_t>> table = {
      {400, AGENTRT_ERR_UPSTREAM},    {401, AGENTRT_ERR_UNAUTHENTICATED},
      {403, AGENTRT_ERR_PERMISSION},  {404, AGENTRT_ERR_UPSTREAM},
      {409, AGENTRT_ERR_UPSTREAM},    {422, AGENTRT_ERR_UPSTREAM},
      {429, AGENTRT_ERR_UNAVAILABLE}, {500, AGENTRT_ERR_UNAVAILABLE},
      {502, AGENTRT_ERR_UNAVAILABLE}, {503, AGENTRT_ERR_UNAVAILABLE},
      {504, AGENTRT_ERR_UNAVAILABLE}, {529, AGENTRT_ERR_UNAVAILABLE},
      {501, AGENTRT_ERR_UPSTREAM},    {302, AGENTRT_ERR_UPSTREAM}};
  for (auto [status, code] : table) {
    sdk::Error e = map_http_error(response(status), {}, "", 0);
    EXPECT_EQ(e.code(), code) << status;
    EXPECT_EQ(e.http_status(), status);
  }
}

TEST(ErrorMapping, ShouldRetryAndQuotaOverrideTheStatus) {
  EXPECT_EQ(map_http_error(response(503, {{"x-should-retry", "false"}}), {}, "", 0).code(),
            AGENTRT_ERR_UPSTREAM);
  EXPECT_EQ(map_http_error(response(408, {{"x-should-retry", "True"}}), {}, "", 0).code(),
            AGENTRT_ERR_UNAVAILABLE);
  UpstreamErrorInfo quota{"You exceeded your current quota", "insufficient_quota", true};
  EXPECT_EQ(map_http_error(response(429, {{"x-should-retry", "true"}}), quota, "", 0).code(),
            AGENTRT_ERR_UPSTREAM);
  // Credentials stay credentials whatever the header says.
  EXPECT_EQ(map_http_error(response(401, {{"x-should-retry", "true"}}), {}, "", 0).code(),
            AGENTRT_ERR_UNAUTHENTICATED);
}

TEST(ErrorMapping, RedactsTheKeyEvenWhenTheTextIsClipped) {
  std::string key = "sk-abcdefghijklmnop";
  UpstreamErrorInfo info{std::string(340, 'x') + key + " and " + key, "", false};
  sdk::Error e = map_http_error(response(401), info, key, 0);
  std::string message = e.what();
  EXPECT_EQ(message.find(key), std::string::npos) << message;
  EXPECT_EQ(message.find("sk-abc"), std::string::npos) << message;
  EXPECT_LT(message.size(), 480u);
  EXPECT_EQ(redact("a KEY b KEYKEY", "KEY"), "a [redacted] b [redacted][redacted]");
  EXPECT_EQ(redact("nothing", ""), "nothing");
}

// What tells part of the key goes too: a masked quote, a piece.
TEST(ErrorMapping, RedactsWhatTellsPartOfTheKey) {
  const std::string key = "sk-proj-SECRETabcdefghijklmnop1234";
  EXPECT_EQ(redact("Incorrect API key provided: sk-proj-************1234. See docs.", key),
            "Incorrect API key provided: [redacted]. See docs.");
  EXPECT_EQ(redact("key ****1234 refused", key), "key [redacted] refused");
  EXPECT_EQ(redact("key sk-p***** refused", key), "key [redacted] refused");
  EXPECT_EQ(redact("key 'SECRETabcdef' unknown", key), "key '[redacted]' unknown");
  for (const std::string& kept :
       {std::string("rate limit of 1234 tokens"), std::string("5 * 3 = 15"),
        std::string("the sk-proj keys"), std::string("use ****9999 instead"),
        std::string("caf\xc3\xa9 ok")})
    EXPECT_EQ(redact(kept, key), kept);
}

TEST(ErrorMapping, ClipsOnlyBetweenCharacters) {
  EXPECT_EQ(clip_utf8("a\xC3\xBC"
                      "b",
                      2),
            "a...");
  EXPECT_EQ(clip_utf8("a\xC3\xBC"
                      "b",
                      3),
            "a\xC3\xBC...");
  EXPECT_EQ(clip_utf8("short", 10), "short");
}

TEST(DataUrl, SplitsMediaTypeAndPayload) {
  std::optional<DataUrl> url = parse_data_url("data:image/png;base64,AAAA");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->media_type, "image/png");
  EXPECT_EQ(url->base64, "AAAA");
  url = parse_data_url("data:image/jpeg;name=x.jpg;base64,/9j/");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->media_type, "image/jpeg");
  EXPECT_FALSE(parse_data_url("https://example.com/a.png"));
  EXPECT_THROW(parse_data_url("data:image/png,rawbytes"), sdk::Error);
  EXPECT_THROW(parse_data_url("data:;base64,AAAA"), sdk::Error);
}

}  // namespace
}  // namespace agentrt::providers
