#include "core/runs/history_cache.h"

#include "core/runs/context_window.h"

#include <algorithm>
#include <iterator>
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

}  // namespace

// The entry's messages, to change: a copy of those it holds when a run's span still
// reads them, or when the messages dropped from the front outnumber them.
std::vector<StoredMessage>& HistoryCache::writable(Entry& entry) {
  std::vector<StoredMessage>& list = entry.messages->list;
  const bool lent = entry.messages->lent.load(std::memory_order_acquire) > 0;
  if (!lent && entry.first <= held(entry)) return list;
  auto own = std::make_shared<Messages>();
  own->list.reserve(held(entry) + 2);
  const auto from = list.begin() + static_cast<std::ptrdiff_t>(entry.first);
  if (lent)
    own->list.insert(own->list.end(), from, list.end());
  else  // only the dropped ones are left behind
    own->list.insert(own->list.end(), std::make_move_iterator(from),
                     std::make_move_iterator(list.end()));
  entry.messages = std::move(own);
  entry.first = 0;
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.copies;
  return entry.messages->list;
}

// A span of the entry's messages from `first` on, for a run. Its copies share one loan,
// given back when the last of them goes; the loan keeps the messages alive until then,
// also once the entry has gone.
HistorySpan HistoryCache::lend(const Entry& entry, size_t first) {
  std::shared_ptr<Messages> messages = entry.messages;
  messages->lent.fetch_add(1, std::memory_order_relaxed);
  const std::vector<StoredMessage>* list = &messages->list;
  std::shared_ptr<const std::vector<StoredMessage>> loan(
      list, [messages = std::move(messages)](const std::vector<StoredMessage>*) {
        messages->lent.fetch_sub(1, std::memory_order_release);
      });
  return HistorySpan(std::move(loan), first, list->size());
}

void HistoryCache::drop_oldest(Entry& entry) {
  const StoredMessage& oldest = entry.messages->list[entry.first++];
  entry.tokens -= oldest.tokens;
  entry.bytes -= bytes_of(oldest);
  entry.from_first = false;
}

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

HistorySpan HistoryCache::recent(const SessionStore& sessions, const std::string& cell,
                                 const std::string& session, int64_t context_window) {
  const std::string key = key_of(cell, session);
  ReadGuard reading(*this, key);
  std::optional<Entry> entry = take(key);
  if (!entry || !(entry->current ? append_stored(*entry, context_window)
                                 : catch_up(*entry, sessions, cell, session, context_window)))
    entry = read_window(sessions, cell, session, context_window);
  if (after_store_read_) after_store_read_();
  entry->window = std::max(entry->window, context_window);
  // Older messages than the largest window needs are of no use to any run.
  while (held(*entry) > 1 &&
         entry->tokens - entry->messages->list[entry->first].tokens > entry->window)
    drop_oldest(*entry);
  if (entry->first > held(*entry)) writable(*entry);  // lets go of those dropped
  const std::vector<StoredMessage>& messages = entry->messages->list;
  // recent_history's rule: newest first, up to and with the message that passes the window.
  size_t first = messages.size();
  for (int64_t tokens = 0; first > entry->first && tokens <= context_window;)
    tokens += messages[--first].tokens;
  HistorySpan out = lend(*entry, first);
  if (held(*entry) > 0) put(key, std::move(*entry));
  return out;
}

// Appends what the session stored since the entry's newest message. False when the
// entry no longer stands for the session, or does not reach back as far as the window.
bool HistoryCache::catch_up(Entry& entry, const SessionStore& sessions, const std::string& cell,
                            const std::string& session, int64_t context_window) {
  std::optional<std::vector<StoredMessage>> added =
      sessions.history_from(cell, session, newest(entry).seq);
  if (!added) return false;
  const bool covers = append(entry, *added, 1, context_window);  // [0] is the entry's newest
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.messages_read += added->size();
  if (covers) ++stats_.hits;
  return covers;
}

// A current entry: what stored() gave it is all the session has added.
bool HistoryCache::append_stored(Entry& entry, int64_t context_window) {
  std::vector<StoredMessage> added = std::move(entry.stored);
  entry.stored.clear();
  entry.stored_bytes = 0;
  const bool covers = append(entry, added, 0, context_window);
  if (covers) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.hits;
    ++stats_.unread_hits;
  }
  return covers;
}

// Appends `added` from `from` on. True when the entry then reaches back as far as the
// window.
bool HistoryCache::append(Entry& entry, std::vector<StoredMessage>& added, size_t from,
                          int64_t context_window) {
  if (added.size() > from) {
    std::vector<StoredMessage>& messages = writable(entry);
    for (size_t i = from; i < added.size(); ++i) {
      StoredMessage& m = added[i];
      if (m.tokens < 0) estimate_stored(m);
      entry.tokens += m.tokens;
      entry.bytes += bytes_of(m);
      messages.push_back(std::move(m));
    }
  }
  return entry.from_first || entry.tokens > context_window;
}

void HistoryCache::stored(const RunOutcome& outcome, std::vector<StoredMessage>&& messages) {
  if (outcome.continues && messages.empty()) return;
  const std::string key = key_of(outcome.cell, outcome.session_id);
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = reading_.find(key); it != reading_.end()) it->second.written = true;
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  Entry& entry = it->second;
  if (!outcome.continues) {  // held of a session deleted before under this id
    erase(it);
    return;
  }
  // Not current: its next use reads what is new. A read after the commit has these.
  if (!entry.current || messages.front().seq <= newest(entry).seq) return;
  for (StoredMessage& m : messages) {
    if (m.tokens < 0) estimate_stored(m);
    entry.stored_bytes += bytes_of(m);
    stats_.bytes += bytes_of(m);
    entry.stored.push_back(std::move(m));
  }
  evict_past_budget();
}

HistoryCache::Entry HistoryCache::read_window(const SessionStore& sessions, const std::string& cell,
                                              const std::string& session, int64_t context_window) {
  Entry entry;
  entry.messages = std::make_shared<Messages>();
  entry.messages->list = recent_history(sessions, cell, session, context_window);
  for (const StoredMessage& m : entry.messages->list) {
    entry.tokens += m.tokens;
    entry.bytes += bytes_of(m);
  }
  // recent_history stops once the window is passed: within it, the rows ended first.
  entry.from_first = entry.tokens <= context_window;
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.misses;
  stats_.messages_read += entry.messages->list.size();
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
  stats_.bytes -= it->second.bytes + it->second.stored_bytes;
  entries_.erase(it);
}

void HistoryCache::evict_past_budget() {
  while (stats_.bytes > max_bytes_ && !lru_.empty()) erase(entries_.find(lru_.back()));
}

std::optional<std::string> HistoryCache::owner(const std::string& cell,
                                               const std::string& session) const {
  const std::string key = key_of(cell, session);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.owner.empty()) return std::nullopt;
  return it->second.owner;
}

uint64_t HistoryCache::deletions() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return deletions_;
}

void HistoryCache::remember_owner(const std::string& cell, const std::string& session,
                                  const std::string& actor, uint64_t deletions_before) {
  const std::string key = key_of(cell, session);
  std::lock_guard<std::mutex> lock(mutex_);
  if (deletions_ != deletions_before) return;
  if (auto it = entries_.find(key); it != entries_.end()) it->second.owner = actor;
}

void HistoryCache::forget(const std::string& cell, const std::string& session) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++deletions_;
  const std::string key = key_of(cell, session);
  if (auto it = entries_.find(key); it != entries_.end()) erase(it);
  if (auto it = reading_.find(key); it != reading_.end()) it->second.forgotten = true;
}

void HistoryCache::forget_cell(const std::string& cell) {
  const std::string prefix = key_of(cell, "");
  std::lock_guard<std::mutex> lock(mutex_);
  ++deletions_;
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
  const Reading& reading = reading_.at(key);
  if (reading.forgotten) return;  // deleted while it was read
  entry.current = !reading.written;
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    if (newest(it->second).seq >= newest(entry).seq) return;
    erase(it);
  }
  lru_.push_front(key);
  entry.lru = lru_.begin();
  stats_.bytes += entry.bytes;
  entries_.emplace(key, std::move(entry));
  evict_past_budget();
}

HistoryCache::Stats HistoryCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace agentrt::core
