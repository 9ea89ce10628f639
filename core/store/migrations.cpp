// The schema, as the ordered list of steps that build it. A released step never
// changes: databases in the field have already run it. New tables and columns go in a
// new step appended at the end.
#include "core/store/state_store.h"

namespace agentrt::core {

const std::vector<Migration>& schema_migrations() {
  // instance_id uses randomblob(): SQLite's generator is seeded from /dev/urandom, and
  // keeping the step pure SQL keeps it replayable by hand with the sqlite3 shell.
  static const std::vector<Migration> migrations = {
      {1, "meta", R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta(key, value) VALUES
  ('instance_id', lower(hex(randomblob(16)))),
  ('created_at', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
)sql"},
      {2, "cells and shared providers", R"sql(
CREATE TABLE cells(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  timezone TEXT NOT NULL,
  locale TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL);
CREATE TABLE shared_providers(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  base_url TEXT,
  api_key_ref TEXT,
  models TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL);
CREATE TABLE provider_models(
  model_id TEXT PRIMARY KEY,
  provider_name TEXT NOT NULL REFERENCES shared_providers(name) ON DELETE CASCADE);
)sql"},
      {3, "sessions, messages, runs and their events", R"sql(
CREATE TABLE sessions(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  cell TEXT NOT NULL,
  id TEXT NOT NULL,
  actor TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE(cell, id));
CREATE INDEX sessions_by_actor ON sessions(cell, actor, seq);
CREATE TABLE messages(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  cell TEXT NOT NULL,
  session_id TEXT NOT NULL,
  run_id TEXT,
  role TEXT NOT NULL,
  content TEXT NOT NULL,
  created_at TEXT NOT NULL);
CREATE INDEX messages_by_session ON messages(cell, session_id, seq);
CREATE TABLE runs(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  cell TEXT NOT NULL,
  session_id TEXT NOT NULL,
  actor TEXT NOT NULL,
  model TEXT NOT NULL,
  status TEXT NOT NULL,
  reason TEXT,
  input_tokens INTEGER,
  output_tokens INTEGER,
  started_at TEXT NOT NULL,
  ended_at TEXT);
CREATE INDEX runs_by_session ON runs(cell, session_id, seq);
CREATE TABLE run_events(
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event TEXT NOT NULL,
  PRIMARY KEY(run_id, seq)) WITHOUT ROWID;
)sql"},
      {4, "shared provider options", R"sql(
ALTER TABLE shared_providers ADD COLUMN options TEXT NOT NULL DEFAULT '{}';
)sql"},
      {5, "agents", R"sql(
CREATE TABLE agents(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  cell TEXT NOT NULL,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  model TEXT,
  system_prompt TEXT NOT NULL DEFAULT '',
  description TEXT NOT NULL DEFAULT '',
  namespace TEXT NOT NULL,
  memory_layers TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE(cell, id),
  UNIQUE(cell, name));
)sql"},
      // A run's events as one JSON array written with the run's end, instead of a row
      // per event: a streamed answer has one event per delta, and their rows were most
      // of the writes of a run. Runs stored before keep their rows in run_events.
      {6, "run events stored with the run", R"sql(
ALTER TABLE runs ADD COLUMN events TEXT;
)sql"},
      // The tables every /chat writes, without AUTOINCREMENT: each INSERT into such a
      // table read and rewrote its row of sqlite_sequence, a page more in every commit
      // and about 8% of a new session's /chat. A rowid is still the largest yet plus
      // one, so seqs grow within a session and a cursor holds; only the seq of the very
      // last row of a table, once deleted, can come again, in another session. The
      // copy keeps every seq. (SQLite's procedure for a change ALTER TABLE cannot make:
      // a new table, the rows copied, the old one dropped, the new one renamed.)
      {7, "sessions, messages and runs without AUTOINCREMENT", R"sql(
CREATE TABLE sessions_v7(
  seq INTEGER PRIMARY KEY,
  cell TEXT NOT NULL,
  id TEXT NOT NULL,
  actor TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE(cell, id));
INSERT INTO sessions_v7(seq, cell, id, actor, created_at, updated_at)
  SELECT seq, cell, id, actor, created_at, updated_at FROM sessions ORDER BY seq;
DROP TABLE sessions;
ALTER TABLE sessions_v7 RENAME TO sessions;
CREATE INDEX sessions_by_actor ON sessions(cell, actor, seq);
CREATE TABLE messages_v7(
  seq INTEGER PRIMARY KEY,
  cell TEXT NOT NULL,
  session_id TEXT NOT NULL,
  run_id TEXT,
  role TEXT NOT NULL,
  content TEXT NOT NULL,
  created_at TEXT NOT NULL);
INSERT INTO messages_v7(seq, cell, session_id, run_id, role, content, created_at)
  SELECT seq, cell, session_id, run_id, role, content, created_at FROM messages ORDER BY seq;
DROP TABLE messages;
ALTER TABLE messages_v7 RENAME TO messages;
CREATE INDEX messages_by_session ON messages(cell, session_id, seq);
CREATE TABLE runs_v7(
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  cell TEXT NOT NULL,
  session_id TEXT NOT NULL,
  actor TEXT NOT NULL,
  model TEXT NOT NULL,
  status TEXT NOT NULL,
  reason TEXT,
  input_tokens INTEGER,
  output_tokens INTEGER,
  started_at TEXT NOT NULL,
  ended_at TEXT,
  events TEXT);
INSERT INTO runs_v7(seq, id, cell, session_id, actor, model, status, reason, input_tokens,
                    output_tokens, started_at, ended_at, events)
  SELECT seq, id, cell, session_id, actor, model, status, reason, input_tokens, output_tokens,
         started_at, ended_at, events FROM runs ORDER BY seq;
DROP TABLE runs;
ALTER TABLE runs_v7 RENAME TO runs;
CREATE INDEX runs_by_session ON runs(cell, session_id, seq);
)sql"},
      // An agent's client tools (JSON text, as GET shows them) and its runs' step limit.
      {8, "agent tools and max_steps", R"sql(
ALTER TABLE agents ADD COLUMN tools TEXT NOT NULL DEFAULT '[]';
ALTER TABLE agents ADD COLUMN max_steps INTEGER;
)sql"},
      // Tool servers saved over the admin API: `entry` is the JSON their plugin is made
      // with, header references unresolved (inline ones as given, as shared providers'
      // keys are kept).
      {9, "tool servers saved over the admin API", R"sql(
CREATE TABLE tool_servers(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL UNIQUE,
  entry TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL);
)sql"},
      // The audit log (core/audit/): admin actions and refused authentications, never
      // changed once written; only the retention rules of the config delete the oldest
      // (core/audit/audit_table.cpp). `kind` keeps two counts apart, so that a flood of
      // refusals cannot push admin actions out: `audit_counts` holds each kind's rows,
      // kept in the transactions that add and prune them. AUTOINCREMENT: a seq is a
      // cursor's position, and must not come again once the newest rows are pruned.
      {10, "audit log", R"sql(
CREATE TABLE audit_log(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  last_at_ms INTEGER,
  count INTEGER NOT NULL DEFAULT 1,
  actor TEXT,
  token_id TEXT,
  peer TEXT,
  request_id TEXT,
  action TEXT NOT NULL,
  target TEXT,
  cell TEXT,
  status INTEGER NOT NULL,
  error TEXT,
  detail TEXT);
CREATE INDEX audit_by_kind ON audit_log(kind, seq);
CREATE INDEX audit_by_time ON audit_log(at_ms);
CREATE INDEX audit_by_actor ON audit_log(actor, seq);
CREATE INDEX audit_by_action ON audit_log(action, seq);
CREATE TABLE audit_counts(kind TEXT PRIMARY KEY, entries INTEGER NOT NULL);
INSERT INTO audit_counts(kind, entries) VALUES ('action', 0), ('refusal', 0);
)sql"},
      // The rate limits and quotas an admin set for a cell (PUT /admin/cells/{id}/limits),
      // as the JSON object sent; the row goes with its cell.
      {11, "cell limits", R"sql(
CREATE TABLE cell_limits(
  cell TEXT PRIMARY KEY REFERENCES cells(id) ON DELETE CASCADE,
  settings TEXT NOT NULL,
  updated_at TEXT NOT NULL);
)sql"},
  };
  return migrations;
}

}  // namespace agentrt::core
