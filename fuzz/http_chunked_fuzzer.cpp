// The chunked request body decoder (server/http/chunked_body.h) on any bytes, handed
// over in reads whose lengths come from the input (fuzz_support.h: CutInput). Besides
// not crashing:
//   - how the bytes are cut into reads changes nothing: status, problem and data are
//     those of the bytes in one read;
//   - a complete body took no byte past its end: its bytes alone decode the same, and
//     what follows them stays unread;
//   - the limit holds, and is exact: a body of n bytes passes a limit of n, and is too
//     large for n - 1;
//   - the data written back as one chunk decodes to itself;
//   - a malformed body says what is wrong.
#include "fuzz/fuzz_support.h"
#include "server/http/chunked_body.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace {

using agentrt::fuzz::CutInput;
using agentrt::server::ChunkedResult;
using agentrt::server::ChunkedSource;
using agentrt::server::ChunkedStatus;
using agentrt::server::read_chunked_body;

constexpr uint64_t kLimit = 1 << 16;

// `bytes` handed out in reads of the given lengths, in turn (a 0 reads one byte); with
// none, as much as is asked for.
class CutSource final : public ChunkedSource {
 public:
  CutSource(std::string_view bytes, std::vector<std::size_t> reads)
      : bytes_(bytes), reads_(std::move(reads)) {}
  int next_byte() override {
    return used_ < bytes_.size() ? static_cast<unsigned char>(bytes_[used_++]) : EOF;
  }
  std::size_t read_some(char* buffer, std::size_t length) override {
    std::size_t n = std::min(length, bytes_.size() - used_);
    if (!reads_.empty()) n = std::min(n, std::max<std::size_t>(1, reads_[turn_++ % reads_.size()]));
    bytes_.copy(buffer, n, used_);
    used_ += n;
    return n;
  }
  std::size_t used() const { return used_; }

 private:
  std::string_view bytes_;
  std::vector<std::size_t> reads_;
  std::size_t turn_ = 0;
  std::size_t used_ = 0;
};

struct Decoded {
  ChunkedResult result;
  std::string data;
  std::size_t used = 0;
};

Decoded decode(std::string_view bytes, std::vector<std::size_t> reads, uint64_t limit = kLimit) {
  CutSource source(bytes, std::move(reads));
  Decoded decoded;
  decoded.result = read_chunked_body(source, limit, decoded.data);
  decoded.used = source.used();
  return decoded;
}

bool same(const Decoded& a, const Decoded& b) {
  if (a.result.status != b.result.status || a.data != b.data) return false;
  if (a.result.status != ChunkedStatus::malformed) return true;
  return std::string_view(a.result.problem) == b.result.problem;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const CutInput input = CutInput::from(data, size);
  const Decoded cut = decode(input.body, input.reads);
  const Decoded whole = decode(input.body, {});
  FUZZ_CHECK(same(cut, whole), "the cut into reads changes nothing");
  FUZZ_CHECK(whole.used <= input.body.size(), "reads stay within the bytes");
  FUZZ_CHECK(whole.data.size() <= kLimit, "the limit holds");
  if (whole.result.status == ChunkedStatus::malformed)
    FUZZ_CHECK(whole.result.problem != nullptr, "a malformed body says why");
  if (whole.result.status != ChunkedStatus::complete) return 0;

  const Decoded alone = decode(input.body.substr(0, whole.used), {});
  FUZZ_CHECK(same(alone, whole) && alone.used == whole.used, "no byte past the body is read");
  const std::size_t n = whole.data.size();
  FUZZ_CHECK(decode(input.body, {}, n).result.status == ChunkedStatus::complete,
             "a body of n bytes passes a limit of n");
  if (n > 0)
    FUZZ_CHECK(decode(input.body, {}, n - 1).result.status == ChunkedStatus::too_large,
               "a body of n bytes is too large for n - 1");

  char size_line[24];
  std::snprintf(size_line, sizeof size_line, "%zx\r\n", n);
  const std::string written = n == 0 ? "0\r\n\r\n" : size_line + whole.data + "\r\n0\r\n\r\n";
  const Decoded again = decode(written, {});
  FUZZ_CHECK(again.result.status == ChunkedStatus::complete && again.data == whole.data &&
                 again.used == written.size(),
             "the data written as one chunk decodes to itself");
  return 0;
}
