// Checks that counts stay true whatever happened to the store: each count equal to the
// length of the fully paged list, and memory_totals equal to a recount of the entries
// (so a tally that drifted, or one left at zero, shows up even where no filter of the
// test looks).
#pragma once

#include "memory_fixture.h"

#include "sqlite_db.h"

#include <string>
#include <vector>

namespace agentrt::test {

class CountCheckTest : public MemoryTest {
 protected:
  // Every combination of the values (each also absent, "" in the lists): all seven
  // counts equal the lengths of the fully paged lists. Returns the entries seen.
  size_t expect_counts_equal_lists(const std::vector<std::string>& cells,
                                   const std::vector<std::string>& actors,
                                   const std::vector<std::string>& namespaces,
                                   const std::vector<std::string>& sessions) const {
    size_t seen = 0;
    for (const std::string& cell : cells)
      for (const std::string& actor : actors)
        for (const std::string& ns : namespaces)
          for (const std::string& session : sessions) {
            json f = filter(cell, actor, ns, session);
            json counts = count(f);
            EXPECT_EQ(counts.size(), 8u) << f;  // the seven layers and "cache_s"
            for (const std::string& layer : kLayers) {
              size_t listed = list_all(f, layer).size();
              EXPECT_EQ(counts[layer], listed) << f << " " << layer;
              seen += listed;
            }
          }
    return seen;
  }

  // Rows in which memory_totals (entries and tokens) and a recount of memory_entries
  // differ (both ways).
  // The recount is written independently of the migration's: one pass over the
  // entries crossed with the four shapes, with the rules of schema.cpp spelled as
  // conditions (actor shapes only in personal layers, namespace shapes only with one).
  int64_t totals_drift() const {
    memory_sqlite::Database db(db_path(), memory_sqlite::OpenMode::kReadOnly);
    return db.query_int(R"sql(
WITH shapes(shape) AS (VALUES (0), (1), (2), (3)),
expected AS (
  SELECT e.cell AS cell, e.layer AS layer, s.shape AS shape,
         CASE WHEN (s.shape & 1) = 1 THEN e.actor ELSE '' END AS actor,
         CASE WHEN (s.shape & 2) = 2 THEN e.namespace ELSE '' END AS ns,
         count(*) AS n, sum(e.token_count) AS tokens
  FROM memory_entries AS e JOIN shapes AS s
  WHERE ((s.shape & 1) = 0 OR e.layer >= 2) AND ((s.shape & 2) = 0 OR e.namespace IS NOT NULL)
  GROUP BY 1, 2, 3, 4, 5),
actual AS (SELECT cell, layer, shape, actor, ns, n, tokens FROM memory_totals)
SELECT (SELECT count(*) FROM (SELECT * FROM actual EXCEPT SELECT * FROM expected))
     + (SELECT count(*) FROM (SELECT * FROM expected EXCEPT SELECT * FROM actual))
)sql");
  }

  // 1 when FTS5's integrity check finds the index and the entries apart, else 0.
  int64_t fts_drift() const {
    memory_sqlite::Database db(db_path(), memory_sqlite::OpenMode::kReadWrite);
    try {
      db.exec("INSERT INTO memory_fts(memory_fts, rank) VALUES('integrity-check', 1)");
    } catch (const std::exception&) {
      return 1;
    }
    return 0;
  }

  int64_t totals_rows() const {
    memory_sqlite::Database db(db_path(), memory_sqlite::OpenMode::kReadOnly);
    return db.query_int("SELECT count(*) FROM memory_totals");
  }
};

}  // namespace agentrt::test
