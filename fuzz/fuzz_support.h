// What the fuzz targets share: an invariant's failure report, and the cut of an input
// into the reads a network would hand over.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace agentrt::fuzz {

// An invariant that does not hold is a finding like a crash: libFuzzer keeps the input.
[[noreturn]] inline void invariant_failed(const char* condition, const char* what, const char* file,
                                          int line) {
  std::fprintf(stderr, "%s:%d: invariant failed: %s (%s)\n", file, line, what, condition);
  std::abort();
}

#define FUZZ_CHECK(condition, what) \
  ((condition) ? void(0) : ::agentrt::fuzz::invariant_failed(#condition, what, __FILE__, __LINE__))

// An input's bytes and the lengths of the reads they arrive in. The input's last byte
// says how many of the bytes before it are read lengths (its value modulo 8); the rest,
// from the start, is the body. So a corpus file is the body as a server sends it, with
// "\0" after it for one read, and libFuzzer moves the cuts by changing those last bytes.
struct CutInput {
  std::string_view body;
  std::vector<std::size_t> reads;  // each from 0 to 255; the body's rest is one more read

  static CutInput from(const uint8_t* data, std::size_t size) {
    CutInput input;
    if (size == 0) return input;
    const std::size_t count = std::min<std::size_t>(data[size - 1] % 8, size - 1);
    const std::size_t body_size = size - 1 - count;
    input.body = std::string_view(reinterpret_cast<const char*>(data), body_size);
    for (std::size_t i = body_size; i < size - 1; ++i) input.reads.push_back(data[i]);
    return input;
  }

  // The body in the reads' pieces, then its rest as one (which may be empty).
  std::vector<std::string_view> pieces() const {
    std::vector<std::string_view> out;
    std::size_t at = 0;
    for (std::size_t length : reads) {
      const std::size_t n = std::min(length, body.size() - at);
      out.push_back(body.substr(at, n));
      at += n;
    }
    out.push_back(body.substr(at));
    return out;
  }
};

}  // namespace agentrt::fuzz
