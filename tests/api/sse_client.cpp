#include "tests/api/sse_client.h"

#include "tests/api/secret_watch.h"

#include <gtest/gtest.h>

#include <Poco/Net/SocketAddress.h>

#include <algorithm>
#include <stdexcept>

namespace agentrt::test {

SseClient::SseClient(uint16_t port, const std::string& method, const std::string& target,
                     const std::vector<std::pair<std::string, std::string>>& headers,
                     const std::string& body)
    : socket_(Poco::Net::SocketAddress("127.0.0.1", port)) {
  std::string request = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (const auto& [name, value] : headers) request += name + ": " + value + "\r\n";
  request += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  socket_.sendBytes(request.data(), static_cast<int>(request.size()));
  while (raw_.find("\r\n\r\n") == std::string::npos)
    if (!fill(std::chrono::seconds(10))) throw std::runtime_error("no response head");
  size_t end = raw_.find("\r\n\r\n");
  head_ = raw_.substr(0, end);
  raw_.erase(0, end + 4);
  status_ = std::stoi(head_.substr(9, 3));
}

bool SseClient::fill(std::chrono::milliseconds timeout) {
  if (!socket_.poll(Poco::Timespan(timeout.count() * 1000), Poco::Net::Socket::SELECT_READ))
    return false;
  char buffer[4096];
  int n = 0;
  try {
    n = socket_.receiveBytes(buffer, sizeof buffer);
  } catch (...) {
    n = 0;
  }
  if (n <= 0) {
    ended_ = true;
    return false;
  }
  raw_.append(buffer, static_cast<size_t>(n));
  return true;
}

// Decodes one chunk of the chunked body into events_; false at the end or on timeout.
bool SseClient::read_chunk(std::chrono::milliseconds timeout) {
  while (raw_.find("\r\n") == std::string::npos)
    if (!fill(timeout)) return false;
  size_t line = raw_.find("\r\n");
  size_t size = std::stoul(raw_.substr(0, line), nullptr, 16);
  if (size == 0) {
    ended_ = true;
    return false;
  }
  while (raw_.size() < line + 2 + size + 2)
    if (!fill(timeout)) return false;
  events_ += raw_.substr(line + 2, size);
  raw_.erase(0, line + 2 + size + 2);
  return true;
}

std::optional<std::string> SseClient::next_data(std::chrono::milliseconds timeout) {
  for (;;) {
    size_t end = events_.find("\n\n");
    while (end != std::string::npos) {
      std::string block = events_.substr(0, end);
      events_.erase(0, end + 2);
      if (block.rfind(":", 0) == 0) {
        ++comments_;
        end = events_.find("\n\n");
        continue;
      }
      // An event's lines: "id: <seq>" (GET /runs/{id}/events), "event: <name>" (OpenAI's
      // Responses) and "data: <text>".
      std::optional<std::string> data;
      std::string name;
      std::optional<int64_t> id;
      size_t from = 0;
      while (from <= block.size()) {
        const size_t to = std::min(block.find('\n', from), block.size());
        const std::string line = block.substr(from, to - from);
        if (line.rfind("data: ", 0) == 0) data = line.substr(6);
        if (line.rfind("id: ", 0) == 0) id = std::stoll(line.substr(4));
        if (line.rfind("event: ", 0) == 0) name = line.substr(7);
        from = to + 1;
      }
      if (data) {
        if (const std::string leaked = leaked_secret(*data); !leaked.empty())
          ADD_FAILURE() << "a stream sent a secret the test gave agentd (" << leaked.substr(0, 4)
                        << "...): " << *data;
        ids_.push_back(id);
        names_.push_back(name);
        return data;
      }
      end = events_.find("\n\n");
    }
    if (ended_ || !read_chunk(timeout)) return std::nullopt;
  }
}

std::optional<nlohmann::json> SseClient::next(std::chrono::milliseconds timeout) {
  std::optional<std::string> data = next_data(timeout);
  if (!data) return std::nullopt;
  return nlohmann::json::parse(*data);
}

std::vector<nlohmann::json> SseClient::rest(std::chrono::milliseconds timeout) {
  std::vector<nlohmann::json> out;
  while (auto event = next(timeout)) out.push_back(*event);
  return out;
}

std::string SseClient::error_body() {
  while (fill(std::chrono::milliseconds(500))) {
  }
  return raw_;
}

}  // namespace agentrt::test
