// The newest messages of the sessions runs went to lately, so that a run on a long
// session reads from the store only what was stored since the session's last run
// instead of its whole window again: with 580 messages in the window, reading them and
// estimating their tokens was half of a /chat's CPU (bench/README.md).
//
// A session only grows, by messages appended at its end, or goes whole (on its own or
// with its cell). So an entry is checked at each use, by the statement that reads what
// is new: the entry's newest message must still be the session's
// (SessionStore::history_from). Anything else, and the window is read from the store
// again. The answer is always recent_history's (context_window.h).
//
// Unless the entry is current: every message stored since it was read came through
// stored() (SessionStore's listener) while it was held, and was appended to it there.
// One agentd owns its data dir (data_dir.h), and every deletion forgets (below), so
// such an entry is the session's end and needs no read: a continued /chat reads no
// message. A message stored while a run had the entry out makes that entry not current
// when it is put back; its next use reads what is new, as above. An entry also keeps
// its session's owner (owner(), remember_owner()), so that such a /chat does not read
// the session's row either.
//
// A run's window is a span of the entry's messages (history_span.h), not a copy. The
// entry counts the spans it lent and not yet got back, and appends to the messages in
// place when none is out (the run before on a session has ended by the time the next
// reads), and copies them first when one is.
//
// Entries go least recently used first once their messages pass `max_bytes`.
//
// A run reads the store between taking its session's entry and putting it back. A
// session or cell deleted meanwhile (forget, forget_cell, each called once the deletion
// is committed) marks that read, and its entry is then not put back: it could hold
// what the deletion removed, which would stay in memory, never served (the next use
// finds the newest message gone) until it was the least recently used.
#pragma once

#include "core/runs/history_span.h"
#include "core/sessions/session_store.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace agentrt::core {

class HistoryCache {
 public:
  explicit HistoryCache(size_t max_bytes) : max_bytes_(max_bytes) {}

  // What recent_history(sessions, cell, session, context_window) gives.
  HistorySpan recent(const SessionStore& sessions, const std::string& cell,
                     const std::string& session, int64_t context_window);

  // The messages a run stored, once committed, oldest first with their seqs (the
  // SessionStore's listener). Appended to the session's entry when it is current; an
  // entry out with a run is marked; a run that began its session drops the entry of any
  // session deleted before under the same id.
  void stored(const RunOutcome& outcome, std::vector<StoredMessage>&& messages);

  // The session's owner (its actor), when a lookup gave it since its entry was made and
  // the entry is still held; else nullopt, and the caller reads the session's row. Only
  // a deletion could change it, and every deletion forgets the entry.
  std::optional<std::string> owner(const std::string& cell, const std::string& session) const;
  // How many deletions were forgotten so far: read before a lookup of the owner.
  uint64_t deletions() const;
  // Keeps the owner a lookup gave on the session's entry, if there is one and no
  // deletion was forgotten since `deletions_before`: the lookup may then have read a
  // session deleted since, whose id a new session may hold now.
  void remember_owner(const std::string& cell, const std::string& session, const std::string& actor,
                      uint64_t deletions_before);

  // Drops what is held of a deleted session, or of every session of a deleted cell, so
  // that their messages do not stay in memory until they are the least recently used.
  // Called by whoever deletes, once the deletion is committed: a current entry is not
  // checked against the store.
  void forget(const std::string& cell, const std::string& session);
  void forget_cell(const std::string& cell);

  struct Stats {
    uint64_t hits = 0;           // answered from an entry and what was new
    uint64_t unread_hits = 0;    // of them, from a current entry: nothing read
    uint64_t misses = 0;         // read from the store
    uint64_t messages_read = 0;  // rows read from the store, either way
    uint64_t copies = 0;  // of an entry's messages: a run still held them, or most were dropped
    size_t bytes = 0;     // held now
  };
  Stats stats() const;

  // Called after each read of the store, before the entry is put back (tests: what a
  // deletion racing a run does).
  void after_store_read(std::function<void()> hook) { after_store_read_ = std::move(hook); }

 private:
  // An entry's messages, and the spans of them lent to runs and not yet given back.
  // Only the entry's holder (the run that took it out of the map) lends them or changes
  // `list`, and it changes `list` only while no span is out. A span's last copy gives
  // the loan back as it goes (release); the holder looks (acquire) before it writes, so
  // whatever a run read happens before the holder's writes.
  struct Messages {
    std::vector<StoredMessage> list;
    std::atomic<int> lent{0};
  };

  struct Entry {
    // The session's newest, oldest first: those of `messages->list` from `first` on.
    std::shared_ptr<Messages> messages;
    size_t first = 0;
    bool from_first = false;  // the session's first message is among them
    int64_t tokens = 0;       // of those held
    int64_t window = 0;       // the largest context window asked of it
    size_t bytes = 0;
    // Every message the session stored since it was read is in `messages` or `stored`.
    bool current = false;
    // Given by stored() while the entry was in the map, for its next use to append:
    // `messages` may be a run's span then. Counted in the cache's bytes, not the entry's.
    std::vector<StoredMessage> stored;
    size_t stored_bytes = 0;
    std::string owner;  // empty until remember_owner
    std::list<std::string>::iterator lru;
  };

  // Runs reading a session's messages now, and whether it was deleted meanwhile.
  struct Reading {
    int readers = 0;
    bool forgotten = false;
    bool written = false;  // stored() came for the session: what was read may be behind
  };
  class ReadGuard;

  static const StoredMessage& newest(const Entry& entry) {
    return entry.stored.empty() ? entry.messages->list.back() : entry.stored.back();
  }
  static size_t held(const Entry& entry) { return entry.messages->list.size() - entry.first; }
  std::vector<StoredMessage>& writable(Entry& entry);
  static HistorySpan lend(const Entry& entry, size_t first);
  static void drop_oldest(Entry& entry);
  std::optional<Entry> take(const std::string& key);
  void erase(std::unordered_map<std::string, Entry>::iterator it);
  void put(const std::string& key, Entry entry);
  bool catch_up(Entry& entry, const SessionStore& sessions, const std::string& cell,
                const std::string& session, int64_t context_window);
  bool append_stored(Entry& entry, int64_t context_window);
  bool append(Entry& entry, std::vector<StoredMessage>& added, size_t from, int64_t context_window);
  void evict_past_budget();  // with the mutex held
  Entry read_window(const SessionStore& sessions, const std::string& cell,
                    const std::string& session, int64_t context_window);

  const size_t max_bytes_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
  std::list<std::string> lru_;  // most recently used first
  std::unordered_map<std::string, Reading> reading_;
  std::function<void()> after_store_read_;
  Stats stats_;
  uint64_t deletions_ = 0;
};

}  // namespace agentrt::core
