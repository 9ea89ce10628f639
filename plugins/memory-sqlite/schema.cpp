#include "schema.h"

#include "sqlite-common/migrations.h"

#include <agentrt/plugin.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace agentrt::memory_sqlite {
namespace {

// Step N brings user_version from N-1 to N. A released step never changes.
//
// Why the table and indexes look like this:
// - seq orders entries (newest first = largest seq). AUTOINCREMENT keeps it strictly
//   increasing even after the newest entry is deleted, which is what makes list
//   cursors stable and lets the FTS index use it as its rowid.
// - Each secondary index leads with (cell, layer) and then one filter column, with
//   seq right after it, so a list with that filter walks the index in seq order with
//   no sort, and a count is a covering range scan. Columns after seq let a count or a
//   list check the remaining filters inside the index (see filter_sql.cpp for which
//   filter uses which index).
// - memory_fts indexes content only (external content, rowid = seq). columnsize=0
//   drops FTS5's per-row size table: the token count search needs is kept in
//   token_count, computed with the same tokenizer at save time.
const char* const kMigrations[] = {
    R"sql(
CREATE TABLE memory_entries(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  cell TEXT NOT NULL,
  layer INTEGER NOT NULL CHECK(layer BETWEEN 0 AND 6),
  requested_layer TEXT,
  actor TEXT NOT NULL,
  namespace TEXT,
  session_id TEXT,
  content TEXT NOT NULL,
  metadata TEXT NOT NULL,
  token_count INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX memory_by_layer ON memory_entries(cell, layer);
CREATE INDEX memory_by_actor ON memory_entries(cell, layer, actor, seq, namespace);
CREATE INDEX memory_by_namespace ON memory_entries(cell, layer, namespace);
CREATE INDEX memory_by_session
  ON memory_entries(cell, layer, session_id, seq, actor, namespace);
CREATE VIRTUAL TABLE memory_fts USING fts5(
  content, content='memory_entries', content_rowid='seq', columnsize=0,
  tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER memory_entries_fts_insert AFTER INSERT ON memory_entries BEGIN
  INSERT INTO memory_fts(rowid, content) VALUES (new.seq, new.content);
END;
CREATE TRIGGER memory_entries_fts_delete AFTER DELETE ON memory_entries BEGIN
  INSERT INTO memory_fts(memory_fts, rowid, content) VALUES ('delete', old.seq, old.content);
END;
CREATE TRIGGER memory_entries_fts_update AFTER UPDATE OF content ON memory_entries BEGIN
  INSERT INTO memory_fts(memory_fts, rowid, content) VALUES ('delete', old.seq, old.content);
  INSERT INTO memory_fts(rowid, content) VALUES (new.seq, new.content);
END;
)sql",
    // Search checks each FTS candidate's visibility by seq. Through the table that is a
    // lookup into wide rows spread over the whole file; this narrow covering copy keeps
    // the same lookups in a b-tree a tenth the size (a mid-frequency word's search about
    // 1.6x faster on the 1M-entry benchmark store).
    R"sql(
CREATE INDEX memory_by_seq
  ON memory_entries(seq, cell, layer, actor, namespace, session_id, token_count);
)sql",
    // Exact tallies for the counts without a session filter. COUNT(*) is linear in the
    // entries it counts (26 ms for a whole cell of the 1M-entry benchmark store); these
    // rows answer every such count with one key lookup per layer. Triggers keep them in
    // the transaction of each insert, delete and update, so they cannot drift, and the
    // step fills them from the rows already there, so a store upgrades in place.
    // - shape is FilterShape::key() without the session bit: 1 = actor, 2 = namespace,
    //   3 = both, 0 = the whole layer; a column the shape does not filter holds ''.
    // - Shared layers (codes 0 and 1) have no actor shapes: the actor filter does not
    //   apply to them. An entry without a namespace is only in shapes 0 and 1, since a
    //   namespace filter never matches it (ns = NULL matches nothing below, either).
    // - Session filters keep COUNT(*): sessions are many and short-lived, and one
    //   session's entries are a short range of memory_by_session.
    // - A tally that reaches zero is deleted, so the table holds only live combinations
    //   and a cleared cell leaves no actor or namespace names behind.
    // - Every statement in the triggers names a full primary key: one lookup each. (A
    //   single zero-sweeping DELETE with IN lists made clearing 36k entries 5x slower.)
    // - No statement updates cell, layer, actor or namespace today; the update trigger
    //   moves the entry between tallies all the same, so no future one can skew them.
    R"sql(
CREATE TABLE memory_totals(
  cell TEXT NOT NULL,
  layer INTEGER NOT NULL,
  shape INTEGER NOT NULL,
  actor TEXT NOT NULL,
  ns TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY(cell, layer, shape, actor, ns)
) WITHOUT ROWID;
INSERT INTO memory_totals
  SELECT cell, layer, 0, '', '', count(*) FROM memory_entries GROUP BY cell, layer;
INSERT INTO memory_totals
  SELECT cell, layer, 1, actor, '', count(*) FROM memory_entries
  WHERE layer >= 2 GROUP BY cell, layer, actor;
INSERT INTO memory_totals
  SELECT cell, layer, 2, '', namespace, count(*) FROM memory_entries
  WHERE namespace IS NOT NULL GROUP BY cell, layer, namespace;
INSERT INTO memory_totals
  SELECT cell, layer, 3, actor, namespace, count(*) FROM memory_entries
  WHERE layer >= 2 AND namespace IS NOT NULL GROUP BY cell, layer, actor, namespace;
CREATE TRIGGER memory_entries_totals_insert AFTER INSERT ON memory_entries BEGIN
  INSERT INTO memory_totals VALUES(new.cell, new.layer, 0, '', '', 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
  INSERT INTO memory_totals SELECT new.cell, new.layer, 1, new.actor, '', 1
    WHERE new.layer >= 2
    ON CONFLICT DO UPDATE SET n = n + 1;
  INSERT INTO memory_totals SELECT new.cell, new.layer, 2, '', new.namespace, 1
    WHERE new.namespace IS NOT NULL
    ON CONFLICT DO UPDATE SET n = n + 1;
  INSERT INTO memory_totals SELECT new.cell, new.layer, 3, new.actor, new.namespace, 1
    WHERE new.layer >= 2 AND new.namespace IS NOT NULL
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER memory_entries_totals_delete AFTER DELETE ON memory_entries BEGIN
  UPDATE memory_totals SET n = n - 1 WHERE cell = old.cell AND layer = old.layer
    AND shape = 0 AND actor = '' AND ns = '';
  UPDATE memory_totals SET n = n - 1 WHERE cell = old.cell AND layer = old.layer
    AND shape = 1 AND actor = old.actor AND ns = '' AND old.layer >= 2;
  UPDATE memory_totals SET n = n - 1 WHERE cell = old.cell AND layer = old.layer
    AND shape = 2 AND actor = '' AND ns = old.namespace;
  UPDATE memory_totals SET n = n - 1 WHERE cell = old.cell AND layer = old.layer
    AND shape = 3 AND actor = old.actor AND ns = old.namespace AND old.layer >= 2;
  DELETE FROM memory_totals WHERE cell = old.cell AND layer = old.layer
    AND shape = 0 AND actor = '' AND ns = '' AND n = 0;
  DELETE FROM memory_totals WHERE cell = old.cell AND layer = old.layer
    AND shape = 1 AND actor = old.actor AND ns = '' AND n = 0;
  DELETE FROM memory_totals WHERE cell = old.cell AND layer = old.layer
    AND shape = 2 AND actor = '' AND ns = old.namespace AND n = 0;
  DELETE FROM memory_totals WHERE cell = old.cell AND layer = old.layer
    AND shape = 3 AND actor = old.actor AND ns = old.namespace AND n = 0;
END;
CREATE TRIGGER memory_entries_totals_update
AFTER UPDATE OF cell, layer, actor, namespace ON memory_entries BEGIN
  UPDATE memory_totals SET n = n - 1 WHERE cell = old.cell AND layer = old.layer
    AND shape = 0 AND actor = '' AND ns = '';
  UPDATE memory_totals SET n = n - 1 WHERE cell = old.cell AND layer = old.layer
    AND shape = 1 AND actor = old.actor AND ns = '' AND old.layer >= 2;
  UPDATE memory_totals SET n = n - 1 WHERE cell = old.cell AND layer = old.layer
    AND shape = 2 AND actor = '' AND ns = old.namespace;
  UPDATE memory_totals SET n = n - 1 WHERE cell = old.cell AND layer = old.layer
    AND shape = 3 AND actor = old.actor AND ns = old.namespace AND old.layer >= 2;
  DELETE FROM memory_totals WHERE cell = old.cell AND layer = old.layer
    AND shape = 0 AND actor = '' AND ns = '' AND n = 0;
  DELETE FROM memory_totals WHERE cell = old.cell AND layer = old.layer
    AND shape = 1 AND actor = old.actor AND ns = '' AND n = 0;
  DELETE FROM memory_totals WHERE cell = old.cell AND layer = old.layer
    AND shape = 2 AND actor = '' AND ns = old.namespace AND n = 0;
  DELETE FROM memory_totals WHERE cell = old.cell AND layer = old.layer
    AND shape = 3 AND actor = old.actor AND ns = old.namespace AND n = 0;
  INSERT INTO memory_totals VALUES(new.cell, new.layer, 0, '', '', 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
  INSERT INTO memory_totals SELECT new.cell, new.layer, 1, new.actor, '', 1
    WHERE new.layer >= 2
    ON CONFLICT DO UPDATE SET n = n + 1;
  INSERT INTO memory_totals SELECT new.cell, new.layer, 2, '', new.namespace, 1
    WHERE new.namespace IS NOT NULL
    ON CONFLICT DO UPDATE SET n = n + 1;
  INSERT INTO memory_totals SELECT new.cell, new.layer, 3, new.actor, new.namespace, 1
    WHERE new.layer >= 2 AND new.namespace IS NOT NULL
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
)sql",
    // Search is per cell. Step 1's index mixed the cells: a term's newest matches
    // could all be another cell's, and BM25's statistics counted every cell, so a
    // busy tenant pushed a small one's entries out of its own searches and a score
    // told one tenant something of what the others stored.
    // - memory_fts gains a second column, cell_tag: one word per entry, 'c' and the
    //   hex of its cell, so no cell name splits into words or matches another's. A
    //   search matches `cell_tag : "c<hex>" AND content : "<term>"`.
    // - Its external content is a view that spells cell_tag the same way, so FTS5's
    //   own rebuild and integrity check read what the triggers wrote.
    // - memory_cell_stats keeps per cell the entries and their tokens (BM25's row count
    //   and average length), in the same transaction as every change, like
    //   memory_totals; a cell with no entries has no row.
    R"sql(
DROP TRIGGER memory_entries_fts_insert;
DROP TRIGGER memory_entries_fts_delete;
DROP TRIGGER memory_entries_fts_update;
DROP TABLE memory_fts;
CREATE VIEW memory_fts_source AS
  SELECT seq, content, 'c' || hex(cell) AS cell_tag FROM memory_entries;
CREATE VIRTUAL TABLE memory_fts USING fts5(
  content, cell_tag, content='memory_fts_source', content_rowid='seq', columnsize=0,
  tokenize='unicode61 remove_diacritics 2');
INSERT INTO memory_fts(memory_fts) VALUES('rebuild');
CREATE TRIGGER memory_entries_fts_insert AFTER INSERT ON memory_entries BEGIN
  INSERT INTO memory_fts(rowid, content, cell_tag)
    VALUES (new.seq, new.content, 'c' || hex(new.cell));
END;
CREATE TRIGGER memory_entries_fts_delete AFTER DELETE ON memory_entries BEGIN
  INSERT INTO memory_fts(memory_fts, rowid, content, cell_tag)
    VALUES ('delete', old.seq, old.content, 'c' || hex(old.cell));
END;
CREATE TRIGGER memory_entries_fts_update AFTER UPDATE OF content, cell ON memory_entries BEGIN
  INSERT INTO memory_fts(memory_fts, rowid, content, cell_tag)
    VALUES ('delete', old.seq, old.content, 'c' || hex(old.cell));
  INSERT INTO memory_fts(rowid, content, cell_tag)
    VALUES (new.seq, new.content, 'c' || hex(new.cell));
END;
CREATE TABLE memory_cell_stats(
  cell TEXT PRIMARY KEY,
  entries INTEGER NOT NULL,
  tokens INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO memory_cell_stats
  SELECT cell, count(*), sum(token_count) FROM memory_entries GROUP BY cell;
CREATE TRIGGER memory_entries_cell_stats_insert AFTER INSERT ON memory_entries BEGIN
  INSERT INTO memory_cell_stats VALUES(new.cell, 1, new.token_count)
    ON CONFLICT DO UPDATE SET entries = entries + 1, tokens = tokens + excluded.tokens;
END;
CREATE TRIGGER memory_entries_cell_stats_delete AFTER DELETE ON memory_entries BEGIN
  UPDATE memory_cell_stats SET entries = entries - 1, tokens = tokens - old.token_count
    WHERE cell = old.cell;
  DELETE FROM memory_cell_stats WHERE cell = old.cell AND entries = 0;
END;
CREATE TRIGGER memory_entries_cell_stats_update
AFTER UPDATE OF cell, token_count ON memory_entries BEGIN
  UPDATE memory_cell_stats SET entries = entries - 1, tokens = tokens - old.token_count
    WHERE cell = old.cell;
  DELETE FROM memory_cell_stats WHERE cell = old.cell AND entries = 0;
  INSERT INTO memory_cell_stats VALUES(new.cell, 1, new.token_count)
    ON CONFLICT DO UPDATE SET entries = entries + 1, tokens = tokens + excluded.tokens;
END;
)sql",
    // Each tally of memory_totals also sums its entries' tokens, so a search's BM25
    // statistics (entries, their average length) are those of the entries its caller
    // may see, read like a count: another actor's private entries move no score of the
    // caller's, and memory_cell_stats (step 4, per cell only) goes. The tallies are
    // filled again from the entries, as in step 3, and step 3's triggers give way to
    // ones that keep both sums.
    R"sql(
DROP TRIGGER memory_entries_cell_stats_insert;
DROP TRIGGER memory_entries_cell_stats_delete;
DROP TRIGGER memory_entries_cell_stats_update;
DROP TABLE memory_cell_stats;
ALTER TABLE memory_totals ADD COLUMN tokens INTEGER NOT NULL DEFAULT 0;
DELETE FROM memory_totals;
INSERT INTO memory_totals
  SELECT cell, layer, 0, '', '', count(*), sum(token_count) FROM memory_entries
  GROUP BY cell, layer;
INSERT INTO memory_totals
  SELECT cell, layer, 1, actor, '', count(*), sum(token_count) FROM memory_entries
  WHERE layer >= 2 GROUP BY cell, layer, actor;
INSERT INTO memory_totals
  SELECT cell, layer, 2, '', namespace, count(*), sum(token_count) FROM memory_entries
  WHERE namespace IS NOT NULL GROUP BY cell, layer, namespace;
INSERT INTO memory_totals
  SELECT cell, layer, 3, actor, namespace, count(*), sum(token_count) FROM memory_entries
  WHERE layer >= 2 AND namespace IS NOT NULL GROUP BY cell, layer, actor, namespace;
DROP TRIGGER memory_entries_totals_insert;
DROP TRIGGER memory_entries_totals_delete;
DROP TRIGGER memory_entries_totals_update;
CREATE TRIGGER memory_entries_totals_insert AFTER INSERT ON memory_entries BEGIN
  INSERT INTO memory_totals VALUES(new.cell, new.layer, 0, '', '', 1, new.token_count)
    ON CONFLICT DO UPDATE SET n = n + 1, tokens = tokens + excluded.tokens;
  INSERT INTO memory_totals SELECT new.cell, new.layer, 1, new.actor, '', 1, new.token_count
    WHERE new.layer >= 2
    ON CONFLICT DO UPDATE SET n = n + 1, tokens = tokens + excluded.tokens;
  INSERT INTO memory_totals SELECT new.cell, new.layer, 2, '', new.namespace, 1, new.token_count
    WHERE new.namespace IS NOT NULL
    ON CONFLICT DO UPDATE SET n = n + 1, tokens = tokens + excluded.tokens;
  INSERT INTO memory_totals
    SELECT new.cell, new.layer, 3, new.actor, new.namespace, 1, new.token_count
    WHERE new.layer >= 2 AND new.namespace IS NOT NULL
    ON CONFLICT DO UPDATE SET n = n + 1, tokens = tokens + excluded.tokens;
END;
CREATE TRIGGER memory_entries_totals_delete AFTER DELETE ON memory_entries BEGIN
  UPDATE memory_totals SET n = n - 1, tokens = tokens - old.token_count
    WHERE cell = old.cell AND layer = old.layer AND shape = 0 AND actor = '' AND ns = '';
  UPDATE memory_totals SET n = n - 1, tokens = tokens - old.token_count
    WHERE cell = old.cell AND layer = old.layer AND shape = 1 AND actor = old.actor
      AND ns = '' AND old.layer >= 2;
  UPDATE memory_totals SET n = n - 1, tokens = tokens - old.token_count
    WHERE cell = old.cell AND layer = old.layer AND shape = 2 AND actor = ''
      AND ns = old.namespace;
  UPDATE memory_totals SET n = n - 1, tokens = tokens - old.token_count
    WHERE cell = old.cell AND layer = old.layer AND shape = 3 AND actor = old.actor
      AND ns = old.namespace AND old.layer >= 2;
  DELETE FROM memory_totals WHERE cell = old.cell AND layer = old.layer
    AND shape = 0 AND actor = '' AND ns = '' AND n = 0;
  DELETE FROM memory_totals WHERE cell = old.cell AND layer = old.layer
    AND shape = 1 AND actor = old.actor AND ns = '' AND n = 0;
  DELETE FROM memory_totals WHERE cell = old.cell AND layer = old.layer
    AND shape = 2 AND actor = '' AND ns = old.namespace AND n = 0;
  DELETE FROM memory_totals WHERE cell = old.cell AND layer = old.layer
    AND shape = 3 AND actor = old.actor AND ns = old.namespace AND n = 0;
END;
CREATE TRIGGER memory_entries_totals_update
AFTER UPDATE OF cell, layer, actor, namespace, token_count ON memory_entries BEGIN
  UPDATE memory_totals SET n = n - 1, tokens = tokens - old.token_count
    WHERE cell = old.cell AND layer = old.layer AND shape = 0 AND actor = '' AND ns = '';
  UPDATE memory_totals SET n = n - 1, tokens = tokens - old.token_count
    WHERE cell = old.cell AND layer = old.layer AND shape = 1 AND actor = old.actor
      AND ns = '' AND old.layer >= 2;
  UPDATE memory_totals SET n = n - 1, tokens = tokens - old.token_count
    WHERE cell = old.cell AND layer = old.layer AND shape = 2 AND actor = ''
      AND ns = old.namespace;
  UPDATE memory_totals SET n = n - 1, tokens = tokens - old.token_count
    WHERE cell = old.cell AND layer = old.layer AND shape = 3 AND actor = old.actor
      AND ns = old.namespace AND old.layer >= 2;
  DELETE FROM memory_totals WHERE cell = old.cell AND layer = old.layer
    AND shape = 0 AND actor = '' AND ns = '' AND n = 0;
  DELETE FROM memory_totals WHERE cell = old.cell AND layer = old.layer
    AND shape = 1 AND actor = old.actor AND ns = '' AND n = 0;
  DELETE FROM memory_totals WHERE cell = old.cell AND layer = old.layer
    AND shape = 2 AND actor = '' AND ns = old.namespace AND n = 0;
  DELETE FROM memory_totals WHERE cell = old.cell AND layer = old.layer
    AND shape = 3 AND actor = old.actor AND ns = old.namespace AND n = 0;
  INSERT INTO memory_totals VALUES(new.cell, new.layer, 0, '', '', 1, new.token_count)
    ON CONFLICT DO UPDATE SET n = n + 1, tokens = tokens + excluded.tokens;
  INSERT INTO memory_totals SELECT new.cell, new.layer, 1, new.actor, '', 1, new.token_count
    WHERE new.layer >= 2
    ON CONFLICT DO UPDATE SET n = n + 1, tokens = tokens + excluded.tokens;
  INSERT INTO memory_totals SELECT new.cell, new.layer, 2, '', new.namespace, 1, new.token_count
    WHERE new.namespace IS NOT NULL
    ON CONFLICT DO UPDATE SET n = n + 1, tokens = tokens + excluded.tokens;
  INSERT INTO memory_totals
    SELECT new.cell, new.layer, 3, new.actor, new.namespace, 1, new.token_count
    WHERE new.layer >= 2 AND new.namespace IS NOT NULL
    ON CONFLICT DO UPDATE SET n = n + 1, tokens = tokens + excluded.tokens;
END;
)sql",
    // A term's window is its newest matches among what the caller may see, not in the
    // whole cell: step 4's window was the cell's, so in a cell of many actors the other
    // actors' private entries could fill it and hide the caller's own older matches.
    // - cell_tag now holds two words: the cell's ('c' and its hex), and the entry's
    //   scope: 's' and the cell's hex for a shared layer, else 'o', the cell's hex, 'g'
    //   (no hex digit, so no two pairs spell the same word) and the actor's hex. An
    //   actor's search matches `cell_tag : ("s<cell>" OR "o<cell>g<actor>")`, an
    //   admin's without an actor the cell's word, as before.
    // - The view spells the words once: the triggers read them from it (a lookup by
    //   seq), so the index, FTS5's rebuild and its integrity check cannot disagree.
    //   Deletes read the row before it goes, inserts after it is there.
    R"sql(
DROP TRIGGER memory_entries_fts_insert;
DROP TRIGGER memory_entries_fts_delete;
DROP TRIGGER memory_entries_fts_update;
DROP VIEW memory_fts_source;
CREATE VIEW memory_fts_source AS
  SELECT seq, content,
    'c' || hex(cell) || CASE WHEN layer < 2 THEN ' s' || hex(cell)
                        ELSE ' o' || hex(cell) || 'g' || hex(actor) END AS cell_tag
  FROM memory_entries;
INSERT INTO memory_fts(memory_fts) VALUES('rebuild');
CREATE TRIGGER memory_entries_fts_insert AFTER INSERT ON memory_entries BEGIN
  INSERT INTO memory_fts(rowid, content, cell_tag)
    SELECT seq, content, cell_tag FROM memory_fts_source WHERE seq = new.seq;
END;
CREATE TRIGGER memory_entries_fts_delete BEFORE DELETE ON memory_entries BEGIN
  INSERT INTO memory_fts(memory_fts, rowid, content, cell_tag)
    SELECT 'delete', seq, content, cell_tag FROM memory_fts_source WHERE seq = old.seq;
END;
CREATE TRIGGER memory_entries_fts_unindex
BEFORE UPDATE OF content, cell, layer, actor ON memory_entries BEGIN
  INSERT INTO memory_fts(memory_fts, rowid, content, cell_tag)
    SELECT 'delete', seq, content, cell_tag FROM memory_fts_source WHERE seq = old.seq;
END;
CREATE TRIGGER memory_entries_fts_update
AFTER UPDATE OF content, cell, layer, actor ON memory_entries BEGIN
  INSERT INTO memory_fts(rowid, content, cell_tag)
    SELECT seq, content, cell_tag FROM memory_fts_source WHERE seq = new.seq;
END;
)sql",
};
constexpr int64_t kSchemaVersion = sizeof kMigrations / sizeof kMigrations[0];

}  // namespace

std::string prepare_private_file(const std::string& data_dir) {
  // SQLite gives its -wal and -shm files the main file's mode, so creating the main
  // file 0600 before SQLite touches it keeps all three private whatever the umask.
  std::string path = data_dir + "/memory.db";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    throw sdk::Error(AGENTRT_ERR_INTERNAL,
                     "memory-sqlite: cannot open '" + path + "': " + std::strerror(errno));
  int rc = ::fchmod(fd, 0600);
  int saved = errno;
  ::close(fd);
  if (rc != 0)
    throw sdk::Error(AGENTRT_ERR_INTERNAL,
                     "memory-sqlite: cannot chmod '" + path + "': " + std::strerror(saved));
  return path;
}

int64_t schema_version() {
  return kSchemaVersion;
}

void migrate(Database& db) {
  migrate_to(db, kSchemaVersion);
}

void migrate_to(Database& db, int64_t target) {
  plugin_sqlite::migrate_to(db, kMigrations, kSchemaVersion, target, "memory-sqlite: memory.db");
}

}  // namespace agentrt::memory_sqlite
