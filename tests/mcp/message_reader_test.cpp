// The mcp plugin's reading of a server's output (plugins/mcp/message_reader.h), without
// a server: lines on stdio, events over HTTP, and what each message is to the client.
#include "mcp/message_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentrt::mcp_reader_test {
namespace {

using mcp::EventStreamReader;
using mcp::LineReader;
using mcp::MessageKind;
using mcp::read_message;

std::vector<std::string> lines_of(LineReader& reader, const std::vector<std::string>& reads) {
  std::vector<std::string> lines;
  for (const std::string& bytes : reads)
    reader.feed(bytes, [&](const std::string& line) { lines.push_back(line); });
  return lines;
}

TEST(McpLineReader, SplitsOnLineFeedsDroppingACarriageReturnAndEmptyLines) {
  LineReader reader(64);
  EXPECT_EQ(lines_of(reader, {"{\"a\":1}\r\n\n{\"b\"", ":2}\n{\"c\":3}"}),
            (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"}));
  EXPECT_EQ(lines_of(reader, {"\n"}), (std::vector<std::string>{"{\"c\":3}"}));
}

// The reader once emptied its buffer when an unfinished line passed the limit and went
// on from there, so the rest of that line was read as a line of its own: a server (or
// what it relays) could end an oversized line with a response to a pending request.
TEST(McpLineReader, DropsALineTooLongWholeSoNoPieceOfItIsReadAsALine) {
  const std::string response = R"({"jsonrpc":"2.0","id":1,"result":{}})";
  const std::string too_long = "{\"x\":\"" + std::string(40, 'a') + "\"}" + response + "\n";
  LineReader whole(32);
  EXPECT_EQ(lines_of(whole, {too_long + "{\"next\":1}\n"}),
            (std::vector<std::string>{"{\"next\":1}"}));
  LineReader pieces(32);
  EXPECT_EQ(lines_of(pieces, {too_long.substr(0, 20), too_long.substr(20, 30), too_long.substr(50),
                              "{\"next\":1}\n"}),
            (std::vector<std::string>{"{\"next\":1}"}));
  LineReader exact(8);
  EXPECT_EQ(lines_of(exact, {"12345678\n123456789\n"}), (std::vector<std::string>{"12345678"}));
}

TEST(McpMessages, AreWhatTheirKeysSay) {
  EXPECT_EQ(read_message(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", true).kind,
            MessageKind::request);
  EXPECT_EQ(read_message(R"({"jsonrpc":"2.0","method":"notifications/x"})", true).kind,
            MessageKind::notification);
  EXPECT_EQ(read_message(R"({"jsonrpc":"2.0","id":"a","result":{}})", true).kind,
            MessageKind::response);
  EXPECT_EQ(read_message(R"({"jsonrpc":"2.0"})", true).kind, MessageKind::other);
  EXPECT_EQ(read_message(R"({"id":1,"result":{}})", true).kind, MessageKind::ignored)
      << "stdio takes JSON-RPC 2.0 alone";
  EXPECT_EQ(read_message(R"({"id":1,"result":{}})", false).kind, MessageKind::response);
  EXPECT_EQ(read_message("[1]", false).kind, MessageKind::ignored);
  EXPECT_EQ(read_message("Starting server...", true).kind, MessageKind::ignored);
}

TEST(McpEventStream, GivesEachEventsDataAndKeepsItsIdAndRetryForATakeUp) {
  EventStreamReader reader;
  std::vector<std::string> messages;
  const auto take = [&](const std::string& message) { messages.push_back(message); };
  reader.feed("id: 1\r\nretry: 1500\r\ndata: {\"a\":1}\r\n\r\nid: 2\r\ndata: {\"b\"", take);
  reader.feed(":2}\n", take);
  reader.finish(take);
  EXPECT_EQ(messages, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"}));
  EXPECT_EQ(reader.last_event_id(), "2");
  EXPECT_EQ(reader.retry_ms(), 1500);
  reader.restart();
  EXPECT_EQ(reader.last_event_id(), "2");
  reader.feed("retry: 99999999999\ndata: x\n\n", take);
  EXPECT_EQ(reader.retry_ms(), 1500) << "a retry past 9 digits is ignored";
}

}  // namespace
}  // namespace agentrt::mcp_reader_test
