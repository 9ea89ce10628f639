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
    if (event == Event::object_start || event == Event::array_start) {
      next_element();
      levels_.push_back({event == Event::array_start, {}, {}, -1});
    } else if ((event == Event::object_end || event == Event::array_end) && !levels_.empty()) {
      levels_.pop_back();
    } else if (event == Event::value) {
      next_element();  // a primitive; a container's end is not a value event
    } else if (event == Event::key && !levels_.empty()) {
      Level& level = levels_.back();
      level.current = parsed.get<std::string>();
      if (!level.seen.insert(level.current).second && first_.empty()) first_ = path();
    }
    return true;
  }
  // The first key written twice, named as the errors name fields, from the outermost
  // object ("messages[0].content[1].text"); empty when none was.
  const std::string& first() const { return first_; }

 private:
  struct Level {
    bool array = false;
    std::set<std::string> seen;  // an object's keys so far
    std::string current;         // an object's key being read
    long index = -1;             // an array's element being read
  };
  void next_element() {
    if (!levels_.empty() && levels_.back().array) ++levels_.back().index;
  }
  std::string path() const {
    std::string named;
    for (const Level& level : levels_) {
      if (level.array)
        named += "[" + std::to_string(level.index) + "]";
      else
        named += (named.empty() ? "" : ".") + level.current;
    }
    return named;
  }
  std::vector<Level> levels_;
  std::string first_;
};

}  // namespace agentrt::core
