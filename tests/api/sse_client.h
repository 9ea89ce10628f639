// Reads a server-sent-event stream as it arrives, event by event, over a raw socket:
// for tests that act while a run is still going (interrupt, disconnect, follow).
#pragma once

#include <Poco/Net/StreamSocket.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace agentrt::test {

class SseClient {
 public:
  // Sends the request and reads the response head.
  SseClient(uint16_t port, const std::string& method, const std::string& target,
            const std::vector<std::pair<std::string, std::string>>& headers,
            const std::string& body = {});

  int status() const { return status_; }
  const std::string& head() const { return head_; }
  // The next event's JSON; nullopt when the stream ended or `timeout` passed.
  std::optional<nlohmann::json> next(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // The next event's data as sent, for streams whose data is not always JSON (OpenAI's
  // ends with "[DONE]").
  std::optional<std::string> next_data(
      std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // Every remaining event until the stream ends.
  std::vector<nlohmann::json> rest(std::chrono::milliseconds timeout = std::chrono::seconds(20));
  int comments() const { return comments_; }  // ": ping" lines seen so far
  // The `id:` of each event read so far, in order (none for an event without one).
  const std::vector<std::optional<int64_t>>& ids() const { return ids_; }
  // The `event:` name of each event read so far, in order ("" for an event without one).
  const std::vector<std::string>& names() const { return names_; }
  bool ended() const { return ended_; }
  // Body of a non-stream (error) response.
  std::string error_body();
  void close() { socket_.close(); }

 private:
  bool fill(std::chrono::milliseconds timeout);
  bool read_chunk(std::chrono::milliseconds timeout);

  Poco::Net::StreamSocket socket_;
  std::string raw_;  // bytes read, not yet decoded
  std::vector<std::optional<int64_t>> ids_;
  std::vector<std::string> names_;
  std::string events_;  // decoded body, not yet split into events
  std::string head_;
  int status_ = 0;
  int comments_ = 0;
  bool ended_ = false;
};

}  // namespace agentrt::test
