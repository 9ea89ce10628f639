#include "core/sessions/unstored_ends.h"

#include "core/log/logger.h"

#include <algorithm>
#include <exception>

namespace agentrt::core {

void UnstoredEnds::keep(End end) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (ends_.size() >= kMost) ends_.erase(ends_.begin());
  ends_.push_back(std::move(end));
  kept_.store(ends_.size(), std::memory_order_release);
}

std::optional<std::string> UnstoredEnds::events_json(const std::string& run_id) const {
  if (empty()) return std::nullopt;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const End& end : ends_)
    if (end.run_id == run_id) return end.events_json;
  return std::nullopt;
}

bool UnstoredEnds::store(StateStore& store) {
  if (empty()) return true;
  std::vector<End> ends;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ends = ends_;  // a copy: followers still find them while the write is under way
  }
  try {
    store.write([&](Connection& db) {
      Statement end = db.prepare(
          "UPDATE runs SET status = 'done', reason = ?, input_tokens = ?, output_tokens = ?, "
          "ended_at = ?, events = ? WHERE id = ? AND status = 'running'");
      for (const End& e : ends) {
        end.bind(1, e.reason)
            .bind(2, e.input_tokens)
            .bind(3, e.output_tokens)
            .bind(4, e.ended_at)
            .bind(5, e.events_json)
            .bind(6, e.run_id)
            .run();
        end.reset();
      }
    });
  } catch (const std::exception& e) {
    log_warn("the ends of runs that could not be stored still cannot be",
             {{"runs", ends.size()}, {"error", e.what()}});
    return false;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ends_.erase(std::remove_if(ends_.begin(), ends_.end(),
                             [&](const End& kept) {
                               return std::any_of(ends.begin(), ends.end(), [&](const End& done) {
                                 return done.run_id == kept.run_id;
                               });
                             }),
              ends_.end());
  kept_.store(ends_.size(), std::memory_order_release);
  log_info("stored the ends of runs that could not be stored before", {{"runs", ends.size()}});
  return true;
}

}  // namespace agentrt::core
