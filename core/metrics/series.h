// A metric family's series, found by their label values. prometheus-cpp's Family::Add
// builds a label map, hashes it and, for a histogram, makes a new histogram on every
// call before it finds the one it has, all under the family's lock; here a series seen
// before costs one hash of its values under a shared lock, which is what a /chat's
// dozen measurements can afford (docs/architecture.md, "Metrics").
//
// A label may cap the distinct values it takes: past the cap, a new value is counted
// as kOther, so that a deployment with thousands of cells (or models, or tools) does
// not make thousands of series of every family that carries them.
#pragma once

#include "core/metrics/metrics.h"

#include <prometheus/family.h>
#include <prometheus/labels.h>

#include <functional>
#include <initializer_list>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace agentrt::core::metrics {

struct Label {
  const char* name;
  // Distinct values told apart; 0: no cap, for a label whose values agentd itself
  // bounds (a route template, a status, an outcome).
  size_t cap = 0;
};

template <class Metric>
class Series {
 public:
  using Make = std::function<Metric&(prometheus::Family<Metric>&, const prometheus::Labels&)>;

  // `make` adds a series to the family: Family::Add, with a histogram's buckets.
  Series(prometheus::Family<Metric>& family, std::vector<Label> labels, Make make)
      : family_(family),
        labels_(std::move(labels)),
        seen_(labels_.size()),
        make_(std::move(make)) {}

  // The series of these label values, one for each label in order.
  Metric& at(std::initializer_list<std::string_view> values) {
    if (values.size() != labels_.size()) throw std::logic_error("metric label count");
    thread_local std::string key;
    key.clear();
    for (std::string_view value : values) {
      // Each value's length first (two bytes: no name a label carries comes near 64 KiB),
      // so that no two lists of values make one key (std::to_string here cost a /chat
      // about 1,500 instructions).
      key.push_back(static_cast<char>(value.size() & 0xff));
      key.push_back(static_cast<char>((value.size() >> 8) & 0xff));
      key.append(value);
    }
    {
      std::shared_lock lock(mutex_);
      auto found = found_.find(key);
      if (found != found_.end()) return *found->second;
    }
    return add(values, key);
  }

 private:
  // Keys remembered at most; past it a series is found through Family::Add (slower,
  // and only reached when label values keep coming that the caps fold).
  static constexpr size_t kMaxKeys = 16384;

  Metric& add(std::initializer_list<std::string_view> values, const std::string& key) {
    std::unique_lock lock(mutex_);
    auto found = found_.find(key);
    if (found != found_.end()) return *found->second;
    prometheus::Labels labels;
    size_t i = 0;
    for (std::string_view given : values) {
      std::string value(given);
      if (labels_[i].cap > 0 && seen_[i].count(value) == 0) {
        if (seen_[i].size() < labels_[i].cap)
          seen_[i].insert(value);
        else
          value = kOther;
      }
      labels.emplace(labels_[i].name, std::move(value));
      ++i;
    }
    Metric& metric = make_(family_, labels);
    if (found_.size() < kMaxKeys) found_.emplace(key, &metric);
    return metric;
  }

  prometheus::Family<Metric>& family_;
  const std::vector<Label> labels_;
  std::vector<std::unordered_set<std::string>> seen_;  // per label, under mutex_
  const Make make_;
  std::shared_mutex mutex_;
  std::unordered_map<std::string, Metric*> found_;
};

}  // namespace agentrt::core::metrics
