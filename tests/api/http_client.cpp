#include "tests/api/http_client.h"

#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace agentrt::test {

namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string trim(const std::string& text) {
  const std::size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return {};
  return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

bool has_named(const Headers& headers, const std::string& name) {
  return std::any_of(headers.begin(), headers.end(),
                     [&](const auto& h) { return lower(h.first) == lower(name); });
}

std::string head_of(const std::string& method, const std::string& target, const Headers& headers) {
  std::string head = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (const auto& [name, value] : headers) head += name + ": " + value + "\r\n";
  return head;
}

}  // namespace

std::string HttpResponse::header(const std::string& name) const {
  const auto it = headers.find(lower(name));
  return it == headers.end() ? std::string() : it->second;
}

bool HttpResponse::has_header(const std::string& name) const {
  return headers.count(lower(name)) != 0;
}

bool HttpResponse::closes_connection() const {
  return lower(header("Connection")) == "close";
}

nlohmann::json& HttpResponse::json() const {
  if (!parsed_) parsed_ = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  return *parsed_;
}

HttpConnection::HttpConnection(uint16_t port, const std::string& host)
    : socket_(Poco::Net::SocketAddress(host, port)) {
  socket_.setReceiveTimeout(Poco::Timespan(10, 0));
  socket_.setSendTimeout(Poco::Timespan(10, 0));
}

HttpResponse HttpConnection::request(const std::string& method, const std::string& target,
                                     const std::string& body, const Headers& headers) {
  std::string head = head_of(method, target, headers);
  if (!body.empty() && !has_named(headers, "Content-Length"))
    head += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  send_raw(head + "\r\n" + body);
  return read_response(method == "HEAD");
}

HttpResponse HttpConnection::request_chunked(const std::string& method, const std::string& target,
                                             const std::string& body, std::size_t chunk_size,
                                             const Headers& headers) {
  std::string message = head_of(method, target, headers) + "Transfer-Encoding: chunked\r\n\r\n";
  char size[32];
  for (std::size_t at = 0; at < body.size(); at += chunk_size) {
    const std::string chunk = body.substr(at, chunk_size);
    std::snprintf(size, sizeof size, "%zx\r\n", chunk.size());
    message += size + chunk + "\r\n";
  }
  send_raw(message + "0\r\n\r\n");
  return read_response(method == "HEAD");
}

void HttpConnection::send_raw(const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const int n = socket_.sendBytes(bytes.data() + sent, static_cast<int>(bytes.size() - sent));
    if (n <= 0) throw std::runtime_error("send failed");
    sent += static_cast<std::size_t>(n);
  }
}

bool HttpConnection::fill() {
  char chunk[16384];
  const int n = socket_.receiveBytes(chunk, sizeof chunk);
  if (n <= 0) return false;
  buffer_.append(chunk, static_cast<std::size_t>(n));
  return true;
}

std::string HttpConnection::read_until_headers_end() {
  std::size_t end;
  while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (!fill()) throw std::runtime_error("connection closed before a response");
  }
  std::string head = buffer_.substr(0, end + 2);
  buffer_.erase(0, end + 4);
  return head;
}

std::string HttpConnection::read_exactly(std::size_t n) {
  while (buffer_.size() < n) {
    if (!fill()) throw std::runtime_error("connection closed inside a response body");
  }
  std::string out = buffer_.substr(0, n);
  buffer_.erase(0, n);
  return out;
}

std::string HttpConnection::read_line() {
  std::size_t end;
  while ((end = buffer_.find("\r\n")) == std::string::npos) {
    if (!fill()) throw std::runtime_error("connection closed inside a chunked body");
  }
  std::string line = buffer_.substr(0, end);
  buffer_.erase(0, end + 2);
  return line;
}

std::string HttpConnection::read_chunked() {
  std::string body;
  for (;;) {
    const std::size_t size = std::stoul(read_line(), nullptr, 16);
    if (size == 0) {
      while (!read_line().empty()) {
      }
      return body;
    }
    body += read_exactly(size);
    read_line();
  }
}

HttpResponse HttpConnection::read_response(bool head_request) {
  HttpResponse response;
  const std::string head = read_until_headers_end();
  std::size_t line_end = head.find("\r\n");
  const std::string status_line = head.substr(0, line_end);
  if (status_line.rfind("HTTP/1.", 0) != 0 || status_line.size() < 12)
    throw std::runtime_error("bad status line: " + status_line);
  response.status = std::stoi(status_line.substr(9, 3));
  for (std::size_t at = line_end + 2; at < head.size(); at = line_end + 2) {
    line_end = head.find("\r\n", at);
    const std::string line = head.substr(at, line_end - at);
    const std::size_t colon = line.find(':');
    if (colon != std::string::npos)
      response.headers[lower(line.substr(0, colon))] = trim(line.substr(colon + 1));
  }
  if (response.status == 100) return read_response(head_request);
  if (head_request || response.status == 204 || response.status == 304) return response;
  if (lower(response.header("Transfer-Encoding")) == "chunked") {
    response.body = read_chunked();
  } else if (response.has_header("Content-Length")) {
    response.body = read_exactly(std::stoul(response.header("Content-Length")));
  } else {
    while (fill()) {
    }
    response.body = std::exchange(buffer_, {});
  }
  return response;
}

bool HttpConnection::closed_by_server(std::chrono::milliseconds wait) {
  if (!buffer_.empty()) return false;
  try {
    if (!socket_.poll(Poco::Timespan(static_cast<long>(wait.count()) * 1000),
                      Poco::Net::Socket::SELECT_READ))
      return false;
    char byte;
    return socket_.receiveBytes(&byte, 1) <= 0;
  } catch (const Poco::Net::ConnectionResetException&) {
    return true;
  }
}

HttpResponse http_request(uint16_t port, const std::string& method, const std::string& target,
                          const std::string& body, const Headers& headers) {
  HttpConnection connection(port);
  return connection.request(method, target, body, headers);
}

}  // namespace agentrt::test
