#include "core/runs/history_cache.h"

#include "core/runs/context_window.h"

#include <algorithm>
#include <utility>

namespace agentrt::core {
namespace {

// A NUL cannot be in a cell or session id, so no two pairs make one key.
std::string key_of(const std::string& cell, const std::string& session) {
  return cell + std::string(1, '\0') + session;
}

size_t bytes_of(const StoredMessage& m) {
  return sizeof m + m.role.size() + m.content_text.size();
}

// `m` comes with its token estimate.
void add_newest(std::deque<StoredMessage>& messages, StoredMessage&& m, int64_t& tokens,
                size_t& bytes) {
  tokens += m.tokens;
  bytes += bytes_of(m);
  messages.push_back(std::move(m));
}

}  // namespace

// Marks a session as being read for as long as recent() works on it.
class HistoryCache::ReadGuard {
 public:
  ReadGuard(HistoryCache& cache, const std::string& key) : cache_(cache), key_(key) {
    std::lock_guard<std::mutex> lock(cache_.mutex_);
    ++cache_.reading_[key_].readers;
  }
  ~ReadGuard() {
    std::lock_guard<std::mutex> lock(cache_.mutex_);
    auto it = cache_.reading_.find(key_);
    if (--it->second.readers == 0) cache_.reading_.erase(it);
  }
  ReadGuard(const ReadGuard&) = delete;
  ReadGuard& operator=(const ReadGuard&) = delete;

 private:
  HistoryCache& cache_;
  const std::string& key_;
};

std::vector<StoredMessage> HistoryCache::recent(const SessionStore& sessions,
                                                const std::string& cell, const std::string& session,
                                                int64_t context_window) {
  const std::string key = key_of(cell, session);
  ReadGuard reading(*this, key);
  std::optional<Entry> entry = take(key);
  if (!entry || !catch_up(*entry, sessions, cell, session, context_window))
    entry = read_window(sessions, cell, session, context_window);
  if (after_store_read_) after_store_read_();
  entry->window = std::max(entry->window, context_window);
  // Older messages than the largest window needs are of no use to any run.
  while (entry->messages.size() > 1 &&
         entry->tokens - entry->messages.front().tokens > entry->window) {
    entry->tokens -= entry->messages.front().tokens;
    entry->bytes -= bytes_of(entry->messages.front());
    entry->messages.pop_front();
    entry->from_first = false;
  }
  // recent_history's rule: newest first, up to and with the message that passes the window.
  size_t first = entry->messages.size();
  for (int64_t tokens = 0; first > 0 && tokens <= context_window;)
    tokens += entry->messages[--first].tokens;
  std::vector<StoredMessage> out(entry->messages.begin() + static_cast<std::ptrdiff_t>(first),
                                 entry->messages.end());
  if (!entry->messages.empty()) put(key, std::move(*entry));
  return out;
}

// Appends what the session stored since the entry's newest message. False when the
// entry no longer stands for the session, or does not reach back as far as the window.
bool HistoryCache::catch_up(Entry& entry, const SessionStore& sessions, const std::string& cell,
                            const std::string& session, int64_t context_window) {
  std::optional<std::vector<StoredMessage>> added =
      sessions.history_from(cell, session, entry.messages.back().seq);
  if (!added) return false;
  for (size_t i = 1; i < added->size(); ++i) {  // the first is the entry's newest
    StoredMessage& m = (*added)[i];
    m.tokens = estimate_stored_tokens(m.content_text);
    add_newest(entry.messages, std::move(m), entry.tokens, entry.bytes);
  }
  const bool covers = entry.from_first || entry.tokens > context_window;
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.messages_read += added->size();
  if (covers) ++stats_.hits;
  return covers;
}

HistoryCache::Entry HistoryCache::read_window(const SessionStore& sessions, const std::string& cell,
                                              const std::string& session, int64_t context_window) {
  std::vector<StoredMessage> window = recent_history(sessions, cell, session, context_window);
  Entry entry;
  for (StoredMessage& m : window)
    add_newest(entry.messages, std::move(m), entry.tokens, entry.bytes);
  // recent_history stops once the window is passed: within it, the rows ended first.
  entry.from_first = entry.tokens <= context_window;
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.misses;
  stats_.messages_read += entry.messages.size();
  return entry;
}

std::optional<HistoryCache::Entry> HistoryCache::take(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  Entry entry = std::move(it->second);
  erase(it);
  return entry;
}

void HistoryCache::erase(std::unordered_map<std::string, Entry>::iterator it) {
  lru_.erase(it->second.lru);
  stats_.bytes -= it->second.bytes;
  entries_.erase(it);
}

void HistoryCache::forget(const std::string& cell, const std::string& session) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string key = key_of(cell, session);
  if (auto it = entries_.find(key); it != entries_.end()) erase(it);
  if (auto it = reading_.find(key); it != reading_.end()) it->second.forgotten = true;
}

void HistoryCache::forget_cell(const std::string& cell) {
  const std::string prefix = key_of(cell, "");
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = entries_.begin(); it != entries_.end();) {
    auto next = std::next(it);
    if (it->first.compare(0, prefix.size(), prefix) == 0) erase(it);
    it = next;
  }
  for (auto& [key, reading] : reading_)
    if (key.compare(0, prefix.size(), prefix) == 0) reading.forgotten = true;
}

// Two runs that raced on one session (the second is refused as busy after reading its
// context) both put an entry back; the one with the newer messages stays.
void HistoryCache::put(const std::string& key, Entry entry) {
  if (entry.bytes > max_bytes_) return;  // it would push out every other entry, then itself
  std::lock_guard<std::mutex> lock(mutex_);
  if (reading_.at(key).forgotten) return;  // deleted while it was read
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    if (it->second.messages.back().seq >= entry.messages.back().seq) return;
    erase(it);
  }
  lru_.push_front(key);
  entry.lru = lru_.begin();
  stats_.bytes += entry.bytes;
  entries_.emplace(key, std::move(entry));
  while (stats_.bytes > max_bytes_ && !lru_.empty()) erase(entries_.find(lru_.back()));
}

HistoryCache::Stats HistoryCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace agentrt::core
