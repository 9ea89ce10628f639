// Comparing a vendor's two readers of one event: the fast scan and the nlohmann
// reference. Whenever the scan reads an event, the reference must read it without
// error and find exactly the same fields; where the scan gives up, the decoder uses
// the reference, so that case needs no comparison.
#pragma once

#include <gtest/gtest.h>
#include <agentrt/plugin.hpp>

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace agentrt::test {

enum class Path { fast, either };

// Fields read by the scan view the event's text: this keeps a test's event text alive
// (and in place) until the end of the test program.
inline const std::string& kept(std::string data) {
  static std::deque<std::string> texts;
  texts.push_back(std::move(data));
  return texts.back();
}

// Scan(data, fields) -> bool; Read(data, fields) may throw sdk::Error.
template <class Fields, class Scan, class Read>
::testing::AssertionResult same_fields(Scan scan, Read read, const std::string& data,
                                       Path path = Path::either) {
  Fields fast, reference;
  const bool scanned = scan(data, fast);
  std::optional<std::string> error;
  try {
    read(data, reference);
  } catch (const sdk::Error& e) {
    error = e.what();
  }
  if (path == Path::fast && !scanned)
    return ::testing::AssertionFailure() << "the scan gave up on " << data;
  if (!scanned) return ::testing::AssertionSuccess();
  if (error)
    return ::testing::AssertionFailure()
           << "the scan read what nlohmann refuses (" << *error << "): " << data;
  if (!(fast == reference))
    return ::testing::AssertionFailure() << "the two readers disagree on " << data;
  return ::testing::AssertionSuccess();
}

// Deterministic near-copies of `seeds`: bytes deleted, inserted and replaced with
// ones that matter to JSON, escapes and UTF-8.
inline std::vector<std::string> mutations(const std::vector<std::string>& seeds, int count) {
  const std::string alphabet = "{}[]\":,\\/u0159aAdDfFeE.-+ \t\r\n\x01\x7F\xC3\xA9\xED\xA0\xF0\x9F";
  uint32_t state = 20241122;
  auto next = [&](size_t n) {
    state = state * 1103515245u + 12345u;
    return static_cast<size_t>((state >> 8) % n);
  };
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) {
    std::string doc = seeds[next(seeds.size())];
    for (size_t edits = 1 + next(3); edits > 0 && !doc.empty(); --edits) {
      size_t at = next(doc.size());
      char c = alphabet[next(alphabet.size())];
      switch (next(4)) {
        case 0:
          doc.erase(at, 1);
          break;
        case 1:
          doc.insert(doc.begin() + static_cast<std::ptrdiff_t>(at), c);
          break;
        case 2:  // a copy of some other part, to make repeated keys and nesting
          doc.insert(at, doc.substr(next(doc.size()), next(24)));
          break;
        default:
          doc[at] = c;
      }
    }
    out.push_back(std::move(doc));
  }
  return out;
}

// Compares the two readers on `count` mutations of `seeds`; returns how many the
// scan read itself (each of them compared), so a test can see it compared plenty.
template <class Fields, class Scan, class Read>
size_t compare_mutations(Scan scan, Read read, const std::vector<std::string>& seeds, int count) {
  size_t scanned = 0;
  for (const std::string& data : mutations(seeds, count)) {
    Fields fields;
    if (scan(data, fields)) ++scanned;
    EXPECT_TRUE(same_fields<Fields>(scan, read, data)) << data;
    if (::testing::Test::HasFailure()) break;
  }
  return scanned;
}

}  // namespace agentrt::test
