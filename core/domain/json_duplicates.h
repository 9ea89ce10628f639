// Keys written twice in one object, found while nlohmann parses: it keeps the last of
// two equal keys, and whoever wrote one twice meant one of them, not necessarily that
// one. A reader checking the first (a gateway validating "admin") would see another
// request than the one served. Passed as the parse's callback (std::ref).
#pragma once

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

namespace agentrt::core {

class DuplicateKeys {
 public:
  bool operator()(int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) {
      levels_.push_back({});
    } else if (event == Event::object_end && !levels_.empty()) {
      levels_.pop_back();
    } else if (event == Event::key && !levels_.empty()) {
      Level& level = levels_.back();
      level.current = parsed.get<std::string>();
      if (!level.seen.insert(level.current).second && first_.empty()) first_ = path();
    }
    return true;
  }
  // The first key written twice, dotted from the outermost object ("a.b"); empty when
  // none was.
  const std::string& first() const { return first_; }

 private:
  struct Level {
    std::set<std::string> seen;
    std::string current;
  };
  std::string path() const {
    std::string dotted;
    for (const Level& level : levels_) dotted += (dotted.empty() ? "" : ".") + level.current;
    return dotted;
  }
  std::vector<Level> levels_;
  std::string first_;
};

}  // namespace agentrt::core
