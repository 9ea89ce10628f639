#include "workload.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace agentrt::bench {
namespace {

// Layer shares in percent: runtime state (session, working) dominates, as it does in
// an agent that writes scratch memory every turn; the shared layers are a tenth.
struct LayerShare {
  const char* name;
  int percent;
};
constexpr LayerShare kLayerShares[] = {{"environment", 5},   {"consensus", 5}, {"about_me", 10},
                                       {"agent_memory", 20}, {"session", 30},  {"working", 25},
                                       {"unknown", 5}};

// Pronounceable, unique words: the rank written in base 32 with a syllable per digit.
std::string make_word(size_t rank) {
  static const char* const kSyllables[] = {"ka", "lo", "mi", "ne", "pu", "ra", "si", "to",
                                           "vu", "we", "xo", "yi", "za", "be", "co", "da",
                                           "fe", "gi", "ho", "ju", "ly", "mo", "nu", "pe",
                                           "qi", "ro", "su", "ti", "ve", "wo", "xe", "yu"};
  std::string w;
  size_t n = rank + 32;  // at least two syllables
  while (n > 0) {
    w += kSyllables[n % 32];
    n /= 32;
  }
  return w;
}

}  // namespace

Zipf::Zipf(size_t n, double s) : cumulative_(n) {
  double total = 0;
  for (size_t i = 0; i < n; ++i) cumulative_[i] = total += 1.0 / std::pow(double(i + 1), s);
}

size_t Zipf::operator()(std::mt19937_64& rng) const {
  double x = std::uniform_real_distribution<double>(0, cumulative_.back())(rng);
  auto it = std::lower_bound(cumulative_.begin(), cumulative_.end(), x);
  return std::min(static_cast<size_t>(it - cumulative_.begin()), cumulative_.size() - 1);
}

Workload::Workload(uint64_t seed)
    : rng_(seed),
      cells_{"acme", "globex"},
      namespaces_{"planner", "coder", "researcher", "support", "writer", "analyst", "ops", "tutor"},
      actor_pick_(kActorsPerCell, 0.8),
      namespace_pick_(8, 1.0),
      word_pick_(kVocabulary, 1.0) {
  words_.reserve(kVocabulary);
  for (size_t rank = 0; rank < kVocabulary; ++rank) words_.push_back(make_word(rank));
}

std::string Workload::actor(size_t index) const {
  char buf[16];
  std::snprintf(buf, sizeof buf, "user-%02zu", index);
  return buf;
}

std::string Workload::content() {
  size_t n = std::uniform_int_distribution<size_t>(8, 30)(rng_);
  std::string text;
  for (size_t i = 0; i < n; ++i) {
    if (i) text += ' ';
    text += words_[word_pick_(rng_)];
  }
  return text;
}

// An actor's sessions follow one another: every kEntriesPerSession session-scoped
// entries the actor moves on to a new one.
std::string Workload::next_session(const std::string& cell, size_t actor_index) {
  size_t& written = session_entries_[{cell, actor_index}];
  size_t k = written++ / kEntriesPerSession;
  return "ses-" + cell + "-" + std::to_string(actor_index) + "-" + std::to_string(k);
}

EntrySpec Workload::next() {
  EntrySpec e;
  // 60% of the traffic is the first cell's.
  e.cell = cells_[std::uniform_int_distribution<int>(0, 99)(rng_) < 60 ? 0 : 1];
  int roll = std::uniform_int_distribution<int>(0, 99)(rng_);
  for (const LayerShare& share : kLayerShares) {
    e.layer = share.name;
    if ((roll -= share.percent) < 0) break;
  }
  size_t actor_index = actor_pick_(rng_);
  e.actor = actor(actor_index);
  bool namespaced = e.layer == "agent_memory" || std::uniform_int_distribution<int>(0, 9)(rng_) < 2;
  if (namespaced) e.ns = namespaces_[namespace_pick_(rng_)];
  if (e.layer == "session" || e.layer == "working") e.session = next_session(e.cell, actor_index);
  if (e.layer == "unknown" && std::uniform_int_distribution<int>(0, 1)(rng_) == 0)
    e.requested_layer = "scratchpad";
  e.content = content();
  return e;
}

std::optional<std::string> Workload::some_session(const std::string& cell, const std::string& actor,
                                                  std::mt19937_64& rng) const {
  size_t index = static_cast<size_t>(std::stoul(actor.substr(5)));
  auto it = session_entries_.find({cell, index});
  if (it == session_entries_.end() || it->second == 0) return std::nullopt;
  size_t last = (it->second - 1) / kEntriesPerSession;
  size_t k = std::uniform_int_distribution<size_t>(0, last)(rng);
  return "ses-" + cell + "-" + std::to_string(index) + "-" + std::to_string(k);
}

}  // namespace agentrt::bench
