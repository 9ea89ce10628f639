#include "common/http_response_reader.h"

#include <strings.h>

#include <algorithm>
#include <array>

namespace agentrt::providers {
namespace {

// Longer heads and lines than any API answers with; a bound, so that a confused
// upstream cannot grow memory without end.
constexpr size_t kMaxHead = 64 * 1024;
constexpr size_t kMaxChunkLine = 1024;
constexpr size_t kMaxTrailers = 16 * 1024;

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
}

// RFC 9110's tchar as a table: a vendor's field names are mostly letters and '-', which
// the search of the punctuation's list cost a memchr each.
constexpr std::array<bool, 256> kTokenChars = [] {
  std::array<bool, 256> table{};
  for (char c = '0'; c <= '9'; ++c) table[static_cast<unsigned char>(c)] = true;
  for (char c = 'a'; c <= 'z'; ++c) table[static_cast<unsigned char>(c)] = true;
  for (char c = 'A'; c <= 'Z'; ++c) table[static_cast<unsigned char>(c)] = true;
  for (char c : std::string_view("!#$%&'*+-.^_`|~")) table[static_cast<unsigned char>(c)] = true;
  return table;
}();

bool token_char(char c) {
  return kTokenChars[static_cast<unsigned char>(c)];
}

uint64_t parse_length(std::string_view value) {
  uint64_t length = 0;
  bool first = true;
  while (true) {
    size_t comma = value.find(',');
    std::string_view item = trim_ows(value.substr(0, comma));
    if (item.empty() || item.size() > 18 ||
        !std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; }))
      throw HttpProtocolError("invalid Content-Length");
    uint64_t n = std::stoull(std::string(item));
    if (!first && n != length) throw HttpProtocolError("Content-Lengths that disagree");
    length = n;
    first = false;
    if (comma == std::string_view::npos) return length;
    value.remove_prefix(comma + 1);
  }
}

}  // namespace

void HttpResponseReader::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    if (state_ == State::done) {
      // Bytes nobody asked for: the answer stands, the connection is not trusted again.
      close_ = true;
      return;
    }
    bytes.remove_prefix(state_ == State::head ? take_head(bytes) : take_body(bytes));
  }
}

void HttpResponseReader::end_of_input() {
  if (state_ == State::close_body) state_ = State::done;
  if (state_ == State::done) return;
  throw HttpProtocolError(state_ == State::head ? "the connection ended before the response head"
                                                : "the connection ended inside the response body");
}

bool HttpResponseReader::reusable() const {
  return state_ == State::done && !close_;
}

size_t HttpResponseReader::take_head(std::string_view bytes) {
  const size_t old = pending_.size();
  pending_.append(bytes);
  const std::string_view text(pending_);
  // From each line feed (found with memchr, not byte by byte), whether a blank line
  // follows; from two bytes back, so that one split across reads is found.
  for (size_t i = old >= 2 ? old - 2 : 0; (i = text.find('\n', i)) != std::string_view::npos; ++i) {
    size_t end = 0;
    if (i + 1 < pending_.size() && pending_[i + 1] == '\n')
      end = i + 2;
    else if (i + 2 < pending_.size() && pending_[i + 1] == '\r' && pending_[i + 2] == '\n')
      end = i + 3;
    if (end == 0) continue;
    if (end > kMaxHead) break;
    pending_.resize(end);
    parse_head();
    return end - old;
  }
  if (pending_.size() > kMaxHead) throw HttpProtocolError("a response head over 64 KiB");
  return bytes.size();
}

void HttpResponseReader::parse_head() {
  std::string head;
  head.swap(pending_);
  headers_.clear();
  std::string_view rest(head);
  bool first = true;
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;
    if (first)
      parse_status_line(line);
    else
      parse_field(line);
    first = false;
  }
  if (status_ >= 100 && status_ < 200) {
    if (status_ == 101) throw HttpProtocolError("a protocol switch that was not asked for");
    return;  // an interim response: the real one follows
  }
  choose_framing();
}

void HttpResponseReader::parse_status_line(std::string_view line) {
  if (line.size() < 12 || line.substr(0, 7) != "HTTP/1." || (line[7] != '0' && line[7] != '1') ||
      line[8] != ' ' || (line.size() > 12 && line[12] != ' '))
    throw HttpProtocolError("a malformed status line");
  long status = 0;
  for (char c : line.substr(9, 3)) {
    if (c < '0' || c > '9') throw HttpProtocolError("a malformed status line");
    status = status * 10 + (c - '0');
  }
  if (status < 100) throw HttpProtocolError("a malformed status line");
  status_ = status;
  http11_ = line[7] == '1';
}

void HttpResponseReader::parse_field(std::string_view line) {
  size_t colon = line.find(':');
  if (colon == 0 || colon == std::string_view::npos ||
      !std::all_of(line.begin(), line.begin() + static_cast<long>(colon), token_char))
    throw HttpProtocolError("a malformed header field");
  std::string name(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(), lower);
  std::string_view value = trim_ows(line.substr(colon + 1));
  // Two finds of one byte each (memchr): find_first_of with a set of two compared every
  // byte of the value with the set, a third of a vendor's head's parsing.
  if (value.find('\r') != std::string_view::npos || value.find('\0') != std::string_view::npos)
    throw HttpProtocolError("a malformed header field");
  auto [it, inserted] = headers_.emplace(std::move(name), std::string(value));
  if (!inserted) it->second.append(", ").append(value);
}

void HttpResponseReader::choose_framing() {
  auto connection = headers_.find("connection");
  close_ = !http11_ || (connection != headers_.end() && list_has(connection->second, "close"));
  if (status_ == 204 || status_ == 304) {
    state_ = State::done;
    return;
  }
  auto coding = headers_.find("transfer-encoding");
  if (coding != headers_.end()) {
    // Only a final "chunked" frames the body; any other coding runs to the close.
    if (list_has(coding->second, "chunked", /*last_only=*/true)) {
      state_ = State::chunk_size;
    } else {
      state_ = State::close_body;
      close_ = true;
    }
    return;
  }
  auto length = headers_.find("content-length");
  if (length == headers_.end()) {
    state_ = State::close_body;
    close_ = true;
    return;
  }
  remaining_ = parse_length(length->second);
  state_ = remaining_ == 0 ? State::done : State::length_body;
}

size_t HttpResponseReader::take_body(std::string_view bytes) {
  switch (state_) {
    case State::length_body:
    case State::chunk_data: {
      size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, bytes.size()));
      remaining_ -= n;
      if (remaining_ == 0)
        state_ = state_ == State::length_body ? State::done : State::chunk_data_end;
      on_body_(bytes.substr(0, n));
      return n;
    }
    case State::close_body:
      on_body_(bytes);
      return bytes.size();
    case State::chunk_size:
    case State::chunk_data_end:
      return take_line(bytes, kMaxChunkLine);
    case State::trailer:
      return take_line(bytes, kMaxTrailers);
    case State::head:
    case State::done:
      break;
  }
  return bytes.size();  // not reached: feed() handles both states itself
}

size_t HttpResponseReader::take_line(std::string_view bytes, size_t limit) {
  size_t nl = bytes.find('\n');
  size_t used = nl == std::string_view::npos ? bytes.size() : nl + 1;
  if (state_ == State::trailer) trailer_bytes_ += used;
  // A line that arrived whole, as chunk lines nearly always do, is read where it stands.
  std::string_view line = bytes.substr(0, used);
  if (!pending_.empty() || nl == std::string_view::npos) {
    pending_.append(line);
    line = pending_;
  }
  if (line.size() > limit || trailer_bytes_ > limit)
    throw HttpProtocolError("an overlong chunk line or trailer");
  if (nl == std::string_view::npos) return used;
  line.remove_suffix(1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (state_ == State::chunk_size) {
    on_chunk_size_line(line);
  } else if (state_ == State::chunk_data_end) {
    if (!line.empty()) throw HttpProtocolError("a chunk longer than its size");
    state_ = State::chunk_size;
  } else {
    on_trailer_line(line);
  }
  pending_.clear();
  return used;
}

void HttpResponseReader::on_chunk_size_line(std::string_view line) {
  uint64_t size = 0;
  size_t digits = 0;
  for (; digits < line.size(); ++digits) {
    char c = lower(line[digits]);
    int value = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (value < 0) break;
    if (digits == 15) throw HttpProtocolError("a chunk size too large");
    size = size * 16 + static_cast<uint64_t>(value);
  }
  std::string_view rest = trim_ows(line.substr(digits));
  if (digits == 0 || (!rest.empty() && rest.front() != ';'))
    throw HttpProtocolError("a malformed chunk size");
  remaining_ = size;
  state_ = size == 0 ? State::trailer : State::chunk_data;
}

void HttpResponseReader::on_trailer_line(std::string_view line) {
  // Trailer fields are read past, never used; the empty line ends the response.
  if (line.empty()) state_ = State::done;
}

}  // namespace agentrt::providers
