#include "common/line_splitter.h"

#include <agentrt/plugin.hpp>

#include <cstring>

namespace agentrt::providers {
namespace {

// One event of a real stream is a few KB; far beyond this is a broken upstream that
// would otherwise make us buffer without limit.
constexpr size_t kMaxLineBytes = 16 * 1024 * 1024;

// Empties the buffer when a line was handed on, however the handler left: the buffer
// keeps its capacity for the next line spanning two reads.
class ClearOnExit {
 public:
  explicit ClearOnExit(std::string& s) : s_(s) {}
  ~ClearOnExit() { s_.clear(); }
  ClearOnExit(const ClearOnExit&) = delete;
  ClearOnExit& operator=(const ClearOnExit&) = delete;

 private:
  std::string& s_;
};

}  // namespace

const char* LineSplitter::find_line_end(const char* from, const char* end) const {
  const size_t size = static_cast<size_t>(end - from);
  const auto* lf = static_cast<const char*>(std::memchr(from, '\n', size));
  if (!cr_ends_line_) return lf;
  const char* cr_limit = lf ? lf : end;
  const auto* cr =
      static_cast<const char*>(std::memchr(from, '\r', static_cast<size_t>(cr_limit - from)));
  return cr ? cr : lf;
}

void LineSplitter::take_line(std::string_view piece, const LineFn& on_line) {
  std::string_view line = piece;
  // A line that arrived whole is handed on straight from the read, without a copy.
  if (!partial_.empty()) {
    partial_.append(piece);
    line = partial_;
  }
  ClearOnExit clear(partial_);
  if (!cr_ends_line_ && !line.empty() && line.back() == '\r') line.remove_suffix(1);
  on_line(line);
}

void LineSplitter::feed(std::string_view bytes, const LineFn& on_line) {
  const char* p = bytes.data();
  const char* const end = p + bytes.size();
  if (skip_lf_ && p < end) {
    skip_lf_ = false;
    if (*p == '\n') ++p;
  }
  while (p < end) {
    const char* eol = find_line_end(p, end);
    if (!eol) break;
    std::string_view piece(p, static_cast<size_t>(eol - p));
    p = eol + 1;
    if (*eol == '\r') {  // only when a CR ends lines: it may be the first of a CRLF
      if (p == end)
        skip_lf_ = true;
      else if (*p == '\n')
        ++p;
    }
    take_line(piece, on_line);
  }
  partial_.append(p, static_cast<size_t>(end - p));
  if (partial_.size() > kMaxLineBytes)
    throw sdk::Error(AGENTRT_ERR_UPSTREAM, "upstream sent a line longer than 16 MiB");
}

}  // namespace agentrt::providers
