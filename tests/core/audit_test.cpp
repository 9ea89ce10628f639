// The audit log's parts: its times, the coalescing of refusals, its table's bounds, and
// the state store's companion that puts an action's entry in the action's transaction.
#include "core/audit/audit_log.h"
#include "core/audit/audit_table.h"
#include "core/audit/refusal_buffer.h"
#include "core/domain/errors.h"
#include "tests/core/temp_dir.h"

#include <gtest/gtest.h>

namespace agentrt::core {
namespace {

AuditEntry refusal(int64_t at_ms, const std::string& peer, int status = 401) {
  AuditEntry entry;
  entry.kind = AuditKind::refusal;
  entry.at_ms = at_ms;
  entry.action = kAuthRefused;
  entry.peer = peer;
  entry.status = status;
  entry.detail = "unknown";
  return entry;
}

AuditEntry action(const std::string& target) {
  AuditEntry entry;
  entry.at_ms = unix_ms_now();
  entry.action = "cell.create";
  entry.target = target;
  entry.status = 201;
  return entry;
}

int64_t rows(StateStore& store, const char* kind) {
  int64_t n = 0;
  store.read([&](Connection& db) {
    Statement count = db.prepare("SELECT count(*) FROM audit_log WHERE kind = ?");
    if (count.bind(1, kind).step()) n = count.column_int(0);
  });
  return n;
}

TEST(AuditTime, WritesAndReadsRfc3339ToTheMillisecond) {
  EXPECT_EQ(rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(rfc3339_ms(1796663358123), "2026-12-07T17:09:18.123Z");
  EXPECT_EQ(parse_rfc3339("2026-12-07T17:09:18.123Z"), 1796663358123);
  EXPECT_EQ(parse_rfc3339("2026-12-07T17:09:18Z"), 1796663358000);
  EXPECT_EQ(parse_rfc3339("2026-12-07T18:09:18.1+01:00"), 1796663358100);
  EXPECT_EQ(parse_rfc3339("2026-12-07T16:09:18.123456-01:00"), 1796663358123);
  EXPECT_EQ(parse_rfc3339("2024-02-29t00:00:00z"), 1709164800000);
  for (const char* bad : {"", "2026-12-07", "2026-12-07T17:09:18", "2026-13-01T00:00:00Z",
                          "2026-02-29T00:00:00Z", "2026-12-07T24:00:00Z", "2026-12-07T17:09:18.Z",
                          "2026-12-07T17:09:18Z ", "2026-12-07T17:09:18+1:00", "yesterday"})
    EXPECT_FALSE(parse_rfc3339(bad).has_value()) << bad;
}

TEST(RefusalBuffer, CountsRefusalsAlikeAsOne) {
  RefusalBuffer buffer(8);
  EXPECT_TRUE(buffer.add(refusal(100, "10.0.0.1")));
  EXPECT_FALSE(buffer.add(refusal(105, "10.0.0.1")));
  EXPECT_FALSE(buffer.add(refusal(103, "10.0.0.2")));
  AuditEntry other_status = refusal(110, "10.0.0.1", 403);
  EXPECT_FALSE(buffer.add(other_status));
  const std::vector<AuditEntry> entries = buffer.take();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].peer, "10.0.0.1");  // oldest first
  EXPECT_EQ(entries[0].count, 2);
  EXPECT_EQ(entries[0].last_at_ms, 105);
  EXPECT_EQ(entries[1].peer, "10.0.0.2");
  EXPECT_EQ(entries[1].count, 1);
  EXPECT_FALSE(entries[1].last_at_ms.has_value());
  EXPECT_EQ(entries[2].status, 403);
  EXPECT_TRUE(buffer.take().empty());
  EXPECT_TRUE(buffer.add(refusal(200, "10.0.0.1")));  // a new window
}

TEST(RefusalBuffer, PastItsKeysCountsTheRestByStatus) {
  RefusalBuffer buffer(2);
  for (int i = 0; i < 100; ++i) buffer.add(refusal(i, "10.0.0." + std::to_string(i)));
  buffer.add(refusal(200, "10.9.9.9", 403));
  const std::vector<AuditEntry> entries = buffer.take();
  ASSERT_EQ(entries.size(), 4u);
  int64_t total = 0;
  for (const AuditEntry& entry : entries) total += entry.count;
  EXPECT_EQ(total, 101);
  EXPECT_EQ(entries[2].detail, "coalesced");
  EXPECT_EQ(entries[2].count, 98);
  EXPECT_FALSE(entries[2].peer.has_value());
  EXPECT_EQ(entries[2].last_at_ms, 99);
  EXPECT_EQ(entries[3].detail, "coalesced");
  EXPECT_EQ(entries[3].status, 403);
}

TEST(AuditTable, KeepsAtMostEachKindsMaximumApart) {
  test_util::TempDir dir;
  StateStore store(dir.path());
  for (int i = 0; i < 5; ++i)
    store.write(
        [&](Connection& db) { insert_audit_entries(db, {action("c" + std::to_string(i))}, 3); });
  std::vector<AuditEntry> flood;
  for (int i = 0; i < 50; ++i) flood.push_back(refusal(i, "10.0.0.1"));
  store.write([&](Connection& db) { insert_audit_entries(db, flood, 20); });
  EXPECT_EQ(rows(store, "action"), 3);
  EXPECT_EQ(rows(store, "refusal"), 20);
  store.read([&](Connection& db) {
    AuditQuery query;
    query.action = "cell.";
    const nlohmann::json page = read_audit_page(db, query);
    ASSERT_EQ(page["data"].size(), 3u);
    EXPECT_EQ(page["data"][0]["target"], "c4");
    EXPECT_EQ(page["data"][2]["target"], "c2");
    Statement count = db.prepare("SELECT entries FROM audit_counts WHERE kind = 'refusal'");
    ASSERT_TRUE(count.step());
    EXPECT_EQ(count.column_int(0), 20);
  });
  store.write([&](Connection& db) { EXPECT_EQ(prune_audit_before(db, 10), 0); });
  store.write([&](Connection& db) { EXPECT_EQ(prune_audit_before(db, 40), 10); });
  EXPECT_EQ(rows(store, "refusal"), 10);
}

TEST(AuditCompanion, CommitsWithTheWriteOrNotAtAll) {
  test_util::TempDir dir;
  StateStore store(dir.path());
  AuditLog audit(store, AuditConfig{});
  const AuditEntry entry = action("acme");
  {
    StateStore::Companion with_write([&](Connection& db) { audit.append(db, entry); });
    EXPECT_THROW(store.write([](Connection&) { throw conflict("no"); }), DomainError);
    EXPECT_FALSE(with_write.committed());
    EXPECT_EQ(rows(store, "action"), 0);  // rolled back with the failed write
    store.write(
        [](Connection& db) { db.exec("INSERT INTO meta(key, value) VALUES ('audited', 'v')"); });
    EXPECT_TRUE(with_write.committed());
    store.write(
        [](Connection& db) { db.exec("INSERT INTO meta(key, value) VALUES ('after', 'v')"); });
  }
  EXPECT_EQ(rows(store, "action"), 1);  // once, with the first write that committed
  store.write([](Connection& db) { db.exec("INSERT INTO meta(key, value) VALUES ('out', 'v')"); });
  EXPECT_EQ(rows(store, "action"), 1);  // none once the companion is gone
}

TEST(AuditLog, ReadsRefusalsHeldAndWritesTheRestAtItsEnd) {
  test_util::TempDir dir;
  StateStore store(dir.path());
  AuditConfig config;
  config.refusal_window_ms = 3600000;
  {
    AuditLog audit(store, config);
    audit.refused(refusal(unix_ms_now(), "10.0.0.1"));
    AuditQuery query;
    EXPECT_EQ(audit.list(query)["data"].size(), 1u);
    audit.refused(refusal(unix_ms_now(), "10.0.0.1"));
  }
  EXPECT_EQ(rows(store, "refusal"), 2);
}

}  // namespace
}  // namespace agentrt::core
