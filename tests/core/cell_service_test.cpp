// Cells over a real state store: validation, uniqueness, paging, and that a refused
// request leaves the store as it was.
#include "core/cells/cell_service.h"
#include "core/domain/errors.h"
#include "tests/core/temp_dir.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

namespace agentrt::core {
namespace {

using nlohmann::json;

class Cells : public ::testing::Test {
 protected:
  test_util::TempDir dir;
  StateStore store{dir.path()};
  CellService cells{store, /*single_cell=*/false};

  ErrorKind error_of(const std::function<void()>& action) {
    try {
      action();
    } catch (const DomainError& e) {
      return e.kind();
    }
    ADD_FAILURE() << "no error";
    return ErrorKind::internal;
  }
  size_t count() { return cells.list(PageRequest{500, std::nullopt})["data"].size(); }
};

TEST_F(Cells, CreateWithDefaultsAndRead) {
  Cell made = cells.create({{"id", "acme"}});
  EXPECT_EQ(made.timezone, "UTC");
  EXPECT_EQ(made.locale, "en-US");
  EXPECT_FALSE(made.created_at.empty());
  auto found = cells.find("acme");
  ASSERT_TRUE(found);
  EXPECT_EQ(to_json(*found), to_json(made));
}

TEST_F(Cells, BadInputIsRefusedAndNothingIsWritten) {
  for (const json& bad :
       {json{{"id", "Acme"}}, json{{"id", "a/b"}}, json{{"id", std::string(64, 'a')}},
        json{{"id", ""}}, json::object(), json{{"id", 5}},
        json{{"id", "ok"}, {"timezone", "Mars/Olympus"}}, json{{"id", "ok"}, {"locale", "!!"}},
        json{{"id", "ok"}, {"colour", "red"}}, json::array()})
    EXPECT_EQ(error_of([&] { cells.create(bad); }), ErrorKind::invalid) << bad.dump();
  EXPECT_EQ(count(), 0u);
}

TEST_F(Cells, DuplicateIsConflict) {
  cells.create({{"id", "acme"}});
  EXPECT_EQ(error_of([&] {
              cells.create({{"id", "acme"}, {"timezone", "Europe/Berlin"}});
            }),
            ErrorKind::conflict);
  EXPECT_EQ(cells.find("acme")->timezone, "UTC");
}

TEST_F(Cells, PatchChangesTimezoneAndLocaleOnly) {
  cells.create({{"id", "acme"}});
  Cell changed = cells.update("acme", {{"timezone", "Asia/Tokyo"}, {"locale", "ja-JP"}});
  EXPECT_EQ(changed.timezone, "Asia/Tokyo");
  EXPECT_EQ(cells.find("acme")->locale, "ja-JP");
  EXPECT_EQ(error_of([&] { cells.update("acme", {{"id", "other"}}); }), ErrorKind::invalid);
  EXPECT_EQ(error_of([&] {
              cells.update("acme", {{"timezone", "Mars/Olympus"}, {"locale", "fr-FR"}});
            }),
            ErrorKind::invalid);
  EXPECT_EQ(cells.find("acme")->locale, "ja-JP") << "a refused patch must change nothing";
  EXPECT_EQ(error_of([&] { cells.update("ghost", {{"locale", "fr-FR"}}); }), ErrorKind::not_found);
}

TEST_F(Cells, DeleteRunsCleanupsInTheSameTransaction) {
  cells.create({{"id", "acme"}});
  std::string cleaned;
  cells.add_cleanup([&](Connection&, const std::string& id) { cleaned = id; });
  cells.remove("acme");
  EXPECT_EQ(cleaned, "acme");
  EXPECT_FALSE(cells.exists("acme"));
  EXPECT_EQ(error_of([&] { cells.remove("acme"); }), ErrorKind::not_found);
}

// What a feature holds in memory is dropped once the deletion is committed, so a read
// that fills it from the store then finds the cell gone; a refused delete drops nothing.
TEST_F(Cells, ForgetsRunAfterTheDeletionIsCommitted) {
  cells.create({{"id", "acme"}});
  std::vector<std::string> forgotten;
  bool cell_still_stored = true;
  cells.add_forget([&](const std::string& id) {
    forgotten.push_back(id);
    store.read([&](Connection& db) {
      cell_still_stored = db.prepare("SELECT 1 FROM cells WHERE id = ?").bind(1, id).step();
    });
  });
  cells.remove("acme");
  EXPECT_EQ(forgotten, std::vector<std::string>{"acme"});
  EXPECT_FALSE(cell_still_stored) << "a reader still saw the cell when its forget ran";
  EXPECT_EQ(error_of([&] { cells.remove("acme"); }), ErrorKind::not_found);
  EXPECT_EQ(forgotten.size(), 1u) << "a refused delete must not forget anything";
}

// exists() remembers cells it has seen; a delete must still be seen at once, and a
// cell created after a miss must be found.
TEST_F(Cells, ExistsFollowsCreateAndDeleteAtOnce) {
  EXPECT_FALSE(cells.exists("acme"));
  cells.create({{"id", "acme"}});
  EXPECT_TRUE(cells.exists("acme"));
  EXPECT_TRUE(cells.exists("acme"));  // now from memory
  cells.remove("acme");
  EXPECT_FALSE(cells.exists("acme"));
  cells.create({{"id", "acme"}});
  EXPECT_TRUE(cells.exists("acme"));
}

// A write outside the deleting transaction holds the cell's fence: the deletion waits
// for it to end, and a hold asked for once the deletion began finds no cell.
TEST_F(Cells, ADeletionWaitsForTheWritesHoldingTheCellAndLaterOnesFindNone) {
  cells.create({{"id", "acme"}});
  cells.create({{"id", "beta"}});
  std::optional<CellFence::Hold> writing = cells.hold("acme");
  ASSERT_TRUE(writing);
  std::atomic<bool> deleted{false};
  std::thread deletion([&] {
    cells.remove("acme");
    deleted = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(deleted) << "deleted while a write held the cell";
  EXPECT_TRUE(cells.exists("acme"));
  writing.reset();
  deletion.join();
  EXPECT_TRUE(deleted);
  EXPECT_FALSE(cells.hold("acme"));
  EXPECT_TRUE(cells.hold("beta"));
  cells.create({{"id", "acme"}});
  EXPECT_TRUE(cells.hold("acme"));
}

// A write admitted to a cell (its request found the cell) that reaches the fence only
// after the cell was deleted and made again under its id finds no cell: the one it was
// admitted to is gone, and the write must not land in the new tenant's cell.
TEST_F(Cells, AWriteAdmittedBeforeADeletionFindsNoCellInTheOneMadeAgain) {
  cells.create({{"id", "acme"}});
  const std::optional<int64_t> admitted = cells.incarnation("acme");
  ASSERT_TRUE(admitted);
  EXPECT_TRUE(cells.hold("acme", admitted));
  cells.remove("acme");
  cells.create({{"id", "acme"}});
  const std::optional<int64_t> again = cells.incarnation("acme");
  ASSERT_TRUE(again);
  EXPECT_NE(*again, *admitted);
  EXPECT_FALSE(cells.hold("acme", admitted));
  EXPECT_TRUE(cells.hold("acme", again));
  EXPECT_TRUE(cells.hold("acme")) << "no incarnation given: the cell as it is";
}

TEST_F(Cells, ListPagesNewestFirstWithoutGapsOrRepeats) {
  for (int i = 0; i < 7; ++i) cells.create({{"id", "c" + std::to_string(i)}});
  std::vector<std::string> seen;
  std::optional<std::string> cursor;
  do {
    json page = cells.list(parse_page_request(std::string("3"), cursor));
    for (const auto& c : page["data"]) seen.push_back(c["id"]);
    cursor = page["next_cursor"].is_null() ? std::nullopt
                                           : std::optional<std::string>(page["next_cursor"]);
  } while (cursor);
  ASSERT_EQ(seen.size(), 7u);
  EXPECT_EQ(seen.front(), "c6");
  EXPECT_EQ(seen.back(), "c0");
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 7u);
}

TEST(SingleCell, DefaultCellAlwaysExistsAndCannotBeDeleted) {
  test_util::TempDir dir;
  StateStore store{dir.path()};
  CellService cells{store, /*single_cell=*/true};
  cells.ensure_default_cell();
  cells.ensure_default_cell();  // idempotent
  EXPECT_TRUE(cells.exists("default"));
  EXPECT_THROW(cells.remove("default"), DomainError);
  EXPECT_TRUE(cells.exists("default"));
}

// No route reaches another cell in single-cell mode, so none can be made, nor tokens
// scoped to it.
TEST(SingleCell, NoOtherCellCanBeMade) {
  test_util::TempDir dir;
  StateStore store{dir.path()};
  CellService cells{store, /*single_cell=*/true};
  cells.ensure_default_cell();
  try {
    cells.create({{"id", "orphan"}});
    ADD_FAILURE() << "made";
  } catch (const DomainError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::conflict);
  }
  EXPECT_FALSE(cells.exists("orphan"));
}

}  // namespace
}  // namespace agentrt::core
