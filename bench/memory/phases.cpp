#include "phases.h"

#include <cstdio>
#include <functional>

namespace agentrt::bench {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// Calls not recorded before each class, so the first samples do not pay for opening
// reader connections and preparing statements.
constexpr size_t kWarmup = 20;

json nullable(const std::optional<std::string>& s) {
  return s ? json(*s) : json(nullptr);
}

json save_request(const EntrySpec& e, size_t i) {
  json r = {{"cell", e.cell},
            {"layer", e.layer},
            {"content", e.content},
            {"namespace", nullable(e.ns)},
            {"actor", e.actor},
            {"session_id", nullable(e.session)},
            {"metadata", {{"source", "bench"}, {"i", i}}}};
  if (e.requested_layer) r["requested_layer"] = *e.requested_layer;
  return r;
}

// A filter drawn for one sample: uniform over cells and actors (not by activity, so the
// many quiet actors are measured too), with the optional parts the class asks for.
struct FilterDraw {
  const Workload& w;
  std::mt19937_64& rng;

  json operator()(bool actor, bool ns, bool session) const {
    for (;;) {
      const std::string& cell = w.cells()[rng() % w.cells().size()];
      std::string who = w.actor(rng() % Workload::kActorsPerCell);
      std::optional<std::string> sid;
      if (session && !(sid = w.some_session(cell, who, rng))) continue;
      json f = {
          {"cell", cell},
          {"actor", actor ? json(who) : json(nullptr)},
          {"namespace", ns ? json(w.namespaces()[rng() % w.namespaces().size()]) : json(nullptr)},
          {"session_id", nullable(sid)}};
      return f;
    }
  }
};

ClassResult run_class(const std::string& name, size_t samples,
                      const std::function<size_t()>& one_call) {
  ClassResult result{name, {}, 0};
  for (size_t i = 0; i < kWarmup; ++i) one_call();
  size_t hits = 0;
  for (size_t i = 0; i < samples; ++i) {
    auto start = Clock::now();
    hits += one_call();
    result.latencies.add(Clock::now() - start);
  }
  result.mean_hits = samples ? static_cast<double>(hits) / static_cast<double>(samples) : 0;
  return result;
}

}  // namespace

size_t Memory::total(const Workload& w) const {
  size_t n = 0;
  for (const std::string& cell : w.cells()) {
    json counts =
        call(table().count,
             {{"cell", cell}, {"actor", nullptr}, {"namespace", nullptr}, {"session_id", nullptr}});
    // The answer also carries "cache_s" (how long the host may reuse it): not a layer.
    for (const auto& item : counts.items())
      if (item.key() != "cache_s") n += item.value().get<size_t>();
  }
  return n;
}

LoadResult load(const Memory& memory, Workload& workload, size_t n) {
  LoadResult result;
  result.entries = n;
  size_t existing = memory.total(workload);
  if (existing != 0 && existing != n)
    throw std::runtime_error("the data dir holds " + std::to_string(existing) + " entries, not " +
                             std::to_string(n) + ": remove it or pass --entries " +
                             std::to_string(existing));
  result.reused = existing == n;
  auto start = Clock::now();
  for (size_t i = 0; i < n; ++i) {
    EntrySpec e = workload.next();
    if (result.reused) continue;
    json request = save_request(e, i);
    auto t = Clock::now();
    memory.call(memory.table().save, request);
    result.saves.add(Clock::now() - t);
    if ((i + 1) % 100000 == 0) {
      double s = std::chrono::duration<double>(Clock::now() - start).count();
      std::fprintf(stderr, "loaded %zu entries in %.1f s (%.0f/s)\n", i + 1, s, double(i + 1) / s);
    }
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

std::vector<ClassResult> measure_counts(const Memory& memory, const Workload& workload,
                                        size_t samples, uint64_t seed) {
  std::mt19937_64 rng(seed);
  FilterDraw draw{workload, rng};
  struct Shape {
    const char* name;
    bool actor, ns, session;
  };
  const Shape shapes[] = {{"actor", true, false, false},
                          {"actor + namespace", true, true, false},
                          {"actor + session", true, false, true},
                          {"actor + namespace + session", true, true, true},
                          {"admin, whole cell", false, false, false},
                          {"admin, namespace", false, true, false},
                          {"admin, session", false, false, true}};
  std::vector<ClassResult> results;
  for (const Shape& s : shapes)
    results.push_back(run_class(s.name, samples, [&] {
      memory.call(memory.table().count, draw(s.actor, s.ns, s.session));
      return size_t{0};
    }));
  return results;
}

std::vector<ClassResult> measure_searches(const Memory& memory, const Workload& workload,
                                          size_t samples, uint64_t seed) {
  std::mt19937_64 rng(seed);
  FilterDraw draw{workload, rng};
  auto word_in = [&](size_t low, size_t high) { return workload.word(low + rng() % (high - low)); };
  struct Kind {
    const char* name;
    bool actor;
    std::function<std::string()> query;
    json layers = nullptr;             // null: all seven
    bool ns = false, session = false;  // filters drawn as counts draw them
  };
  const Kind kinds[] = {
      {"1 common word (rank 1-10), actor", true, [&] { return word_in(0, 10); }},
      {"1 common word (rank 1-10), admin whole cell", false, [&] { return word_in(0, 10); }},
      {"1 mid word (rank 100-1000), actor", true, [&] { return word_in(100, 1000); }},
      {"1 rare word (rank 5000-50000), actor", true, [&] { return word_in(5000, 50000); }},
      {"3 words: common + mid + rare, actor", true,
       [&] { return word_in(0, 10) + " " + word_in(100, 1000) + " " + word_in(5000, 50000); }},
      {"8 words, mixed ranks, actor", true,
       [&] {
         std::string q;
         for (int i = 0; i < 8; ++i) q += word_in(0, i < 2 ? 10 : 20000) + " ";
         return q;
       }},
      {"1 common word, shared layers only, actor", true, [&] { return word_in(0, 10); },
       json::array({"environment", "consensus"})},
      {"1 mid word, about_me only, actor", true, [&] { return word_in(100, 1000); },
       json::array({"about_me"})},
      {"1 common word, actor + session", true, [&] { return word_in(0, 10); }, nullptr, false,
       true},
      {"1 mid word, agent_memory, actor + namespace", true, [&] { return word_in(100, 1000); },
       json::array({"agent_memory"}), true, false}};
  std::vector<ClassResult> results;
  for (const Kind& k : kinds)
    results.push_back(run_class(k.name, samples, [&] {
      json request = draw(k.actor, k.ns, k.session);
      request["query"] = k.query();
      request["layers"] = k.layers;
      request["limit"] = 10;
      return memory.call(memory.table().search, request)["data"].size();
    }));
  return results;
}

}  // namespace agentrt::bench
