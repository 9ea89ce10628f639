#include "common/line_splitter.h"

#include <agentrt/plugin.hpp>

namespace agentrt::providers {
namespace {

// One event of a real stream is a few KB; far beyond this is a broken upstream that
// would otherwise make us buffer without limit.
constexpr size_t kMaxLineBytes = 16 * 1024 * 1024;

}  // namespace

void LineSplitter::take_line(const LineFn& on_line) {
  std::string line;
  line.swap(partial_);
  if (!cr_ends_line_ && !line.empty() && line.back() == '\r') line.pop_back();
  on_line(line);
}

void LineSplitter::feed(std::string_view bytes, const LineFn& on_line) {
  size_t start = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    char c = bytes[i];
    if (skip_lf_) {
      skip_lf_ = false;
      if (c == '\n') {
        start = i + 1;
        continue;
      }
    }
    if (c == '\n' || (c == '\r' && cr_ends_line_)) {
      partial_.append(bytes.data() + start, i - start);
      start = i + 1;
      skip_lf_ = (c == '\r');
      take_line(on_line);
    }
  }
  partial_.append(bytes.data() + start, bytes.size() - start);
  if (partial_.size() > kMaxLineBytes)
    throw sdk::Error(AGENTRT_ERR_UPSTREAM, "upstream sent a line longer than 16 MiB");
}

}  // namespace agentrt::providers
