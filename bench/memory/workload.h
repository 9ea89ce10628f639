// The benchmark's synthetic memory: a deterministic stream of entries shaped like a
// busy deployment (two cells, skewed actor activity, agent namespaces, sessions that
// come and go, every layer), with contents drawn from a Zipf vocabulary so that a few
// words are in a large share of all entries and most words are rare.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace agentrt::bench {

struct EntrySpec {
  std::string cell;
  std::string layer;
  std::optional<std::string> requested_layer;
  std::string actor;
  std::optional<std::string> ns;
  std::optional<std::string> session;
  std::string content;
};

// Draws indexes 0..n-1 with probability proportional to 1 / (index + 1)^s.
class Zipf {
 public:
  Zipf(size_t n, double s);
  size_t operator()(std::mt19937_64& rng) const;

 private:
  std::vector<double> cumulative_;
};

class Workload {
 public:
  static constexpr size_t kActorsPerCell = 50;
  static constexpr size_t kVocabulary = 50000;
  static constexpr size_t kEntriesPerSession = 20;

  explicit Workload(uint64_t seed);

  // The next entry of the stream; the same seed always gives the same stream.
  EntrySpec next();

  const std::vector<std::string>& cells() const { return cells_; }
  const std::vector<std::string>& namespaces() const { return namespaces_; }
  // Vocabulary ordered by frequency rank: word(0) is the most common.
  const std::string& word(size_t rank) const { return words_[rank]; }
  std::string actor(size_t index) const;

  // A session that exists for (cell, actor) after the entries generated so far, if any.
  std::optional<std::string> some_session(const std::string& cell, const std::string& actor,
                                          std::mt19937_64& rng) const;

 private:
  std::string content();
  std::string next_session(const std::string& cell, size_t actor_index);

  std::mt19937_64 rng_;
  std::vector<std::string> cells_, namespaces_, words_;
  Zipf actor_pick_, namespace_pick_, word_pick_;
  // Per (cell, actor): entries written to sessions so far.
  std::map<std::pair<std::string, size_t>, size_t> session_entries_;
};

}  // namespace agentrt::bench
