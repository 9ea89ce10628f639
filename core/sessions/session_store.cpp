#include "core/sessions/session_store.h"

#include "core/domain/errors.h"
#include "core/log/logger.h"
#include "core/store/paged_query.h"

#include <algorithm>
#include <array>

namespace agentrt::core {
namespace {

// What a page of messages may hold (read_page_within): sessions keep messages of
// hundreds of KB (documents, images as data URLs), and 500 of them made a page of 500 MB.
constexpr size_t kPageBytes = 8 << 20;

SessionRecord read_session(const Statement& row) {
  return {row.column_text(1), row.column_text(2), row.column_text(3), row.column_text(4),
          row.column_text(5)};
}

constexpr const char* kSessionColumns = "seq, cell, id, actor, created_at, updated_at";

// A whole cell's page from the newest rows of the table, when the cell holds most of
// them (single-cell mode, a dominant cell): the walk back finds a page in about `limit`
// rows, where the cell's index would read and sort every session of the cell (145 ms
// at 250,000, store_bench --list). A cell with few of the rows would make the walk
// long, so it stops after kCellScanRows rows and answers nothing; the index then serves
// the page.
std::optional<nlohmann::json> list_from_newest(Connection& db, const std::string& cell,
                                               const PageRequest& page) {
  constexpr int64_t kCellScanRows = SessionStore::kCellScanRows;
  auto rows = db.prepare(std::string("SELECT ") + kSessionColumns + ", cell = ?1" +
                         " FROM sessions WHERE seq < ?2 ORDER BY seq DESC LIMIT ?3");
  rows.bind(1, cell).bind(2, page.after.value_or(INT64_MAX)).bind(3, kCellScanRows);
  int64_t seen = 0;
  nlohmann::json body = read_page(
      rows, page.limit, [](const Statement& row) { return to_json(read_session(row)); },
      [&seen](const Statement& row) {
        ++seen;
        return row.column_int(6) != 0;
      });
  // A full page, or every row below the cursor seen (the page is whole, and the last).
  if (!body["next_cursor"].is_null() || seen < kCellScanRows) return body;
  return std::nullopt;
}

}  // namespace

nlohmann::json to_json(const SessionRecord& s) {
  return {
      {"id", s.id}, {"actor", s.actor}, {"created_at", s.created_at}, {"updated_at", s.updated_at}};
}

std::optional<SessionRecord> SessionStore::find(const std::string& cell,
                                                const std::string& id) const {
  std::optional<SessionRecord> found;
  store_.read_short([&](Connection& db) {
    auto row = db.prepare(std::string("SELECT ") + kSessionColumns +
                          " FROM sessions WHERE cell = ? AND id = ?");
    if (row.bind(1, cell).bind(2, id).step()) found = read_session(row);
  });
  return found;
}

int64_t SessionStore::end_abandoned_runs(
    const std::function<std::string(const AbandonedRun&)>& events) {
  int64_t ended = 0;
  const std::string now = utc_timestamp_now();
  store_.write([&](Connection& db) {
    std::vector<AbandonedRun> runs;
    auto rows =
        db.prepare("SELECT id, session_id, model, started_at FROM runs WHERE status = 'running'");
    while (rows.step())
      runs.push_back(
          {rows.column_text(0), rows.column_text(1), rows.column_text(2), rows.column_text(3)});
    Statement end = db.prepare(
        "UPDATE runs SET status = 'done', reason = 'interrupted', ended_at = ?, events = ? "
        "WHERE id = ?");
    for (const AbandonedRun& run : runs) {
      end.bind(1, now).bind(2, events(run)).bind(3, run.id).run();
      end.reset();
    }
    ended = static_cast<int64_t>(runs.size());
  });
  return ended;
}

// An actor's sessions are read newest first straight from sessions_by_actor. One
// statement for both, with "(?2 IS NULL OR actor = ?2)", kept SQLite from using the
// actor in the index: it read every session of the cell and sorted them, 25-35 ms for
// an actor's one session among 250,000.
std::string SessionStore::list_sql(bool by_actor) {
  return std::string("SELECT ") + kSessionColumns + " FROM sessions WHERE cell = ?1 AND " +
         (by_actor ? "actor = ?2 AND " : "") + "seq < ?3 ORDER BY seq DESC LIMIT ?4";
}

nlohmann::json SessionStore::list(const std::string& cell, const std::optional<std::string>& actor,
                                  const PageRequest& page) const {
  nlohmann::json body;
  store_.read([&](Connection& db) {
    if (!actor) {
      if (auto newest = list_from_newest(db, cell, page)) {
        body = std::move(*newest);
        return;
      }
    }
    auto rows = db.prepare(list_sql(actor.has_value()));
    rows.bind(1, cell);
    if (actor) rows.bind(2, *actor);
    rows.bind(3, page.after.value_or(INT64_MAX)).bind(4, int64_t{page.limit} + 1);
    body = read_page(rows, page.limit,
                     [](const Statement& row) { return to_json(read_session(row)); });
  });
  return body;
}

std::vector<StoredMessage> SessionStore::history(const std::string& cell,
                                                 const std::string& session) const {
  std::vector<StoredMessage> out;
  store_.read([&](Connection& db) {
    auto row = db.prepare(
        "SELECT role, content FROM messages WHERE cell = ? AND session_id = ? ORDER BY seq");
    row.bind(1, cell).bind(2, session);
    while (row.step()) out.push_back({row.column_text(0), row.column_text(1)});
  });
  return out;
}

void SessionStore::history_newest_first(const std::string& cell, const std::string& session,
                                        const std::function<bool(StoredMessage&&)>& take) const {
  store_.read([&](Connection& db) {
    auto row = db.prepare(
        "SELECT role, content, seq FROM messages WHERE cell = ? AND session_id = ? "
        "ORDER BY seq DESC");
    row.bind(1, cell).bind(2, session);
    while (row.step())
      if (!take({row.column_text(0), row.column_text(1), -1, row.column_int(2)})) return;
  });
}

std::optional<std::vector<StoredMessage>> SessionStore::history_from(const std::string& cell,
                                                                     const std::string& session,
                                                                     int64_t seq) const {
  std::optional<std::vector<StoredMessage>> out;
  store_.read_short([&](Connection& db) {
    auto row = db.prepare(
        "SELECT role, content, seq FROM messages WHERE cell = ? AND session_id = ? AND seq >= ? "
        "ORDER BY seq");
    row.bind(1, cell).bind(2, session).bind(3, seq);
    if (!row.step() || row.column_int(2) != seq) return;
    out.emplace();
    do out->push_back({row.column_text(0), row.column_text(1), -1, row.column_int(2)});
    while (row.step());
  });
  return out;
}

nlohmann::json SessionStore::messages(const std::string& cell, const std::string& session,
                                      const PageRequest& page) const {
  nlohmann::json body;
  store_.read([&](Connection& db) {
    auto rows = db.prepare(
        "SELECT seq, role, content, run_id, created_at FROM messages WHERE cell = ? AND "
        "session_id = ? AND seq > ? ORDER BY seq LIMIT ?");
    rows.bind(1, cell).bind(2, session).bind(3, page.after.value_or(0));
    rows.bind(4, int64_t{page.limit} + 1);
    const auto bytes = [](const Statement& row) { return row.column_bytes(2); };
    body = read_page_within(rows, page.limit, kPageBytes, bytes, [](const Statement& row) {
      return nlohmann::json{
          {"role", row.column_text(1)},
          {"content", nlohmann::json::parse(row.column_text(2))},
          {"run_id", row.column_is_null(3) ? nlohmann::json() : nlohmann::json(row.column_text(3))},
          {"created_at", row.column_text(4)}};
    });
  });
  return body;
}

bool SessionStore::remove(const std::string& cell, const std::string& id) {
  bool existed = false;
  store_.write([&](Connection& db) {
    db.prepare(
          "DELETE FROM run_events WHERE run_id IN (SELECT id FROM runs WHERE cell = ? AND "
          "session_id = ?)")
        .bind(1, cell)
        .bind(2, id)
        .run();
    db.prepare("DELETE FROM runs WHERE cell = ? AND session_id = ?")
        .bind(1, cell)
        .bind(2, id)
        .run();
    db.prepare("DELETE FROM messages WHERE cell = ? AND session_id = ?")
        .bind(1, cell)
        .bind(2, id)
        .run();
    db.prepare("DELETE FROM sessions WHERE cell = ? AND id = ?").bind(1, cell).bind(2, id).run();
    existed = db.changes() > 0;
  });
  return existed;
}

void SessionStore::remove_cell(Connection& db, const std::string& cell) {
  db.prepare("DELETE FROM run_events WHERE run_id IN (SELECT id FROM runs WHERE cell = ?)")
      .bind(1, cell)
      .run();
  for (const char* sql : {"DELETE FROM runs WHERE cell = ?", "DELETE FROM messages WHERE cell = ?",
                          "DELETE FROM sessions WHERE cell = ?"})
    db.prepare(sql).bind(1, cell).run();
}

namespace {

// Sets an existing session's `updated_at`; false when there is none.
bool touch_session(Connection& db, const std::string& cell, const std::string& session,
                   const std::string& updated_at) {
  db.prepare("UPDATE sessions SET updated_at = ? WHERE cell = ? AND id = ?")
      .bind_borrowed(1, updated_at)
      .bind_borrowed(2, cell)
      .bind_borrowed(3, session)
      .run();
  return db.changes() > 0;
}

// A run's session, created owned by the run's actor unless it exists; an existing one
// gets `updated_at` only when `touch_existing`.
// A session stored meanwhile by another actor is not this run's to add to: two runs may
// begin a session of the same new id at once, each finding none, and the second's turn
// must not go into the first's session. The run fails as on any session of another
// actor's, and nothing of it is stored.
void insert_session(Connection& db, const RunRecord& run, const std::string& updated_at,
                    bool touch_existing) {
  db.prepare(touch_existing
                 ? "INSERT INTO sessions(cell, id, actor, created_at, updated_at) VALUES (?, ?, ?, "
                   "?, ?) ON CONFLICT(cell, id) DO UPDATE SET updated_at = excluded.updated_at "
                   "WHERE actor = excluded.actor"
                 : "INSERT INTO sessions(cell, id, actor, created_at, updated_at) VALUES (?, ?, ?, "
                   "?, ?) ON CONFLICT(cell, id) DO UPDATE SET actor = excluded.actor "
                   "WHERE actor = excluded.actor")
      .bind_borrowed(1, run.cell)
      .bind_borrowed(2, run.session_id)
      .bind_borrowed(3, run.actor)
      .bind_borrowed(4, run.started_at)
      .bind_borrowed(5, updated_at)
      .run();
  if (db.changes() == 0) throw not_found("session '" + run.session_id + "' not found");
}

// Binds ?1 to ?5 of a runs insert: id, cell, session_id, actor, model.
Statement& bind_run_identity(Statement& insert, const RunRecord& run) {
  return insert.bind_borrowed(1, run.id)
      .bind_borrowed(2, run.cell)
      .bind_borrowed(3, run.session_id)
      .bind_borrowed(4, run.actor)
      .bind_borrowed(5, run.model);
}

void insert_run_start(Connection& db, const RunRecord& run) {
  insert_session(db, run, run.started_at, /*touch_existing=*/false);
  Statement insert = db.prepare(
      "INSERT INTO runs(id, cell, session_id, actor, model, status, started_at) "
      "VALUES (?, ?, ?, ?, ?, 'running', ?)");
  bind_run_identity(insert, run).bind_borrowed(6, run.started_at).run();
}

// A run never written as started goes in finished, in one row and one statement.
void insert_finished_run(Connection& db, const RunRecord& run, const RunOutcome& outcome,
                         const std::string& now) {
  // A continued session all but surely exists, and an UPDATE costs less than the
  // upsert (5 thousand instructions a /chat); the upsert still makes it anew when it
  // was deleted since the run began.
  if (!(outcome.continues && touch_session(db, run.cell, run.session_id, now)))
    insert_session(db, run, now, /*touch_existing=*/true);
  Statement insert = db.prepare(
      "INSERT INTO runs(id, cell, session_id, actor, model, status, reason, input_tokens, "
      "output_tokens, started_at, ended_at, events) VALUES (?, ?, ?, ?, ?, 'done', ?, ?, ?, ?, "
      "?, ?)");
  bind_run_identity(insert, run)
      .bind_borrowed(6, outcome.reason)
      .bind(7, outcome.input_tokens)
      .bind(8, outcome.output_tokens)
      .bind_borrowed(9, run.started_at)
      .bind_borrowed(10, now)
      .bind_borrowed(11, outcome.events_json)
      .run();
}

void finish_started_run(Connection& db, const RunOutcome& outcome, const std::string& now) {
  db.prepare(
        "UPDATE runs SET status = 'done', reason = ?, input_tokens = ?, output_tokens = ?, "
        "ended_at = ?, events = ? WHERE id = ?")
      .bind_borrowed(1, outcome.reason)
      .bind(2, outcome.input_tokens)
      .bind(3, outcome.output_tokens)
      .bind_borrowed(4, now)
      .bind_borrowed(5, outcome.events_json)
      .bind_borrowed(6, outcome.run_id)
      .run();
  touch_session(db, outcome.cell, outcome.session_id, now);
}

// The run's messages, up to kMessagesAStatement rows a statement: a statement a row
// cost 5 thousand instructions more a /chat (while the table had AUTOINCREMENT, most of
// it loading and saving sqlite_sequence once a statement). What every row shares is
// bound once, as ?1 to ?4; each row's role and content follow.
constexpr size_t kMessagesAStatement = 4;

const std::string& insert_messages_sql(size_t rows) {
  static const std::array<std::string, kMessagesAStatement + 1> sql = [] {
    std::array<std::string, kMessagesAStatement + 1> texts;
    for (size_t n = 1; n <= kMessagesAStatement; ++n) {
      std::string& text = texts[n];
      text = "INSERT INTO messages(cell, session_id, run_id, created_at, role, content) VALUES ";
      for (size_t i = 0; i < n; ++i)
        text += (i ? ", " : "") + std::string("(?1, ?2, ?3, ?4, ?") + std::to_string(5 + 2 * i) +
                ", ?" + std::to_string(6 + 2 * i) + ")";
    }
    return texts;
  }();
  return sql[rows];
}

// The rows of one INSERT take consecutive seqs, in order: this connection is the only
// writer, and SQLite gives each row the largest rowid yet plus one (migration 7).
void insert_messages(Connection& db, const RunOutcome& outcome,
                     const std::vector<SharedText>& contents, const std::string& now,
                     std::vector<int64_t>& seqs) {
  for (size_t first = 0; first < contents.size(); first += kMessagesAStatement) {
    const size_t rows = std::min(kMessagesAStatement, contents.size() - first);
    Statement insert = db.prepare(insert_messages_sql(rows));
    insert.bind_borrowed(1, outcome.cell)
        .bind_borrowed(2, outcome.session_id)
        .bind_borrowed(3, outcome.run_id)
        .bind_borrowed(4, now);
    for (size_t i = 0; i < rows; ++i)
      insert.bind_borrowed(static_cast<int>(5 + 2 * i), outcome.new_messages[first + i].role)
          .bind_borrowed(static_cast<int>(6 + 2 * i), contents[first + i].str());
    insert.run();
    const int64_t last = db.last_insert_rowid();
    for (size_t i = 0; i < rows; ++i) seqs[first + i] = last - static_cast<int64_t>(rows - 1 - i);
  }
}

}  // namespace

void SessionStore::start_run(const RunRecord& run, const std::atomic<bool>* discarded) {
  store_.write([&](Connection& db) {
    if (!(discarded && *discarded)) insert_run_start(db, run);
  });
  unstored_.store(store_);  // the store takes writes again
}

void SessionStore::finish_run(const RunOutcome& outcome, const RunRecord* start) {
  const std::string now = utc_timestamp_now();
  // Each message goes into the store, and to the listener, as the text it came as.
  std::vector<SharedText> contents;
  contents.reserve(outcome.new_messages.size());
  for (const auto& m : outcome.new_messages) contents.push_back(m.content_text);
  std::vector<int64_t> seqs(contents.size());
  bool stored = false;
  store_.write([&](Connection& db) {
    // Read here, after any deletion committed before this write.
    if (outcome.discarded && *outcome.discarded) return;
    stored = true;
    if (start)
      insert_finished_run(db, *start, outcome, now);
    else
      finish_started_run(db, outcome, now);
    insert_messages(db, outcome, contents, now, seqs);
  });
  unstored_.store(store_);  // the store takes writes again
  if (!stored || !messages_stored_) return;
  std::vector<StoredMessage> handed;
  // A run that began its session follows nothing a listener could hold: it is told of
  // the run alone (a new session's /chat, 2 thousand instructions less).
  if (outcome.continues) {
    handed.reserve(contents.size());
    for (size_t i = 0; i < contents.size(); ++i) {
      const StoredMessage& m = outcome.new_messages[i];
      handed.push_back(
          {m.role, std::move(contents[i]), m.tokens, seqs[i], m.has_image, m.has_tool_parts});
    }
  }
  messages_stored_(outcome, std::move(handed));
}

std::optional<RunRecord> SessionStore::find_run(const std::string& cell,
                                                const std::string& run_id) const {
  std::optional<RunRecord> found;
  store_.read_short([&](Connection& db) {
    auto row = db.prepare(
        "SELECT id, cell, session_id, actor, model, status, coalesce(reason, ''), started_at, "
        "coalesce(ended_at, ''), coalesce(input_tokens, 0), coalesce(output_tokens, 0) FROM runs "
        "WHERE cell = ? AND id = ?");
    if (!row.bind(1, cell).bind(2, run_id).step()) return;
    found =
        RunRecord{row.column_text(0), row.column_text(1), row.column_text(2), row.column_text(3),
                  row.column_text(4), row.column_text(5), row.column_text(6), row.column_text(7),
                  row.column_text(8), row.column_int(9),  row.column_int(10)};
  });
  return found;
}

std::vector<nlohmann::json> SessionStore::run_events(const std::string& run_id,
                                                     int64_t after) const {
  std::vector<nlohmann::json> events;
  // Not stored here: a read must not wait out a store that is held (the busy timeout).
  if (std::optional<std::string> kept = unstored_.events_json(run_id)) {
    for (auto& event : nlohmann::json::parse(*kept))
      if (event.value("seq", int64_t{0}) > after) events.push_back(std::move(event));
    return events;
  }
  store_.read([&](Connection& db) {
    auto run = db.prepare("SELECT events FROM runs WHERE id = ?");
    if (run.bind(1, run_id).step() && !run.column_is_null(0)) {
      for (auto& event : nlohmann::json::parse(run.column_text(0)))
        if (event.value("seq", int64_t{0}) > after) events.push_back(std::move(event));
      return;
    }
    // Runs finished before schema step 6 keep a row per event.
    auto row = db.prepare("SELECT event FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq");
    row.bind(1, run_id).bind(2, after);
    while (row.step()) events.push_back(nlohmann::json::parse(row.column_text(0)));
  });
  return events;
}

}  // namespace agentrt::core
