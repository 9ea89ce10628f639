#include "core/cells/cell_service.h"

#include "core/cells/cell_rules.h"
#include "core/domain/errors.h"
#include "core/domain/json_fields.h"
#include "core/log/logger.h"
#include "core/store/meta.h"
#include "core/store/paged_query.h"

namespace agentrt::core {
namespace {

constexpr const char* kColumns = "seq, id, timezone, locale, created_at, updated_at";

Cell read_cell(const Statement& row) {
  return {row.column_text(1), row.column_text(2), row.column_text(3), row.column_text(4),
          row.column_text(5)};
}

std::string checked_timezone(const std::string& timezone) {
  if (!valid_timezone(timezone))
    throw invalid("field 'timezone' must be an IANA time zone name such as Europe/Berlin; '" +
                  timezone + "' is not in the zone database");
  return timezone;
}

std::string checked_locale(const std::string& locale) {
  if (!valid_locale(locale))
    throw invalid("field 'locale' must be a BCP 47 language tag such as en-US");
  return locale;
}

}  // namespace

nlohmann::json to_json(const Cell& cell) {
  return {{"id", cell.id},
          {"timezone", cell.timezone},
          {"locale", cell.locale},
          {"created_at", cell.created_at},
          {"updated_at", cell.updated_at}};
}

CellService::CellService(StateStore& store, bool single_cell)
    : store_(store), single_cell_(single_cell) {}

void CellService::ensure_default_cell() {
  if (!single_cell_ || exists(kDefaultCellId)) return;
  create({{"id", kDefaultCellId}});
}

std::vector<std::string> CellService::cells_beside_default(int limit) const {
  std::vector<std::string> ids;
  store_.read([&](Connection& db) {
    auto rows = db.prepare("SELECT id FROM cells WHERE id <> ? ORDER BY id LIMIT ?");
    rows.bind(1, kDefaultCellId).bind(2, int64_t{limit});
    while (rows.step()) ids.push_back(rows.column_text(0));
  });
  return ids;
}

Cell CellService::create(const nlohmann::json& body) {
  require_object(body);
  reject_unknown_fields(body, {"id", "timezone", "locale"});
  Cell cell;
  cell.id = required_string(body, "id");
  if (!valid_cell_id(cell.id))
    throw invalid(
        "field 'id' must be 1 to 63 characters of a-z, 0-9, '_' and '-', starting "
        "with a letter or digit");
  // No route reaches another cell in single-cell mode: it could hold nothing.
  if (single_cell_ && cell.id != kDefaultCellId)
    throw conflict("single-cell mode has only the cell 'default'; start agentd with --mode multi");
  cell.timezone = checked_timezone(optional_string(body, "timezone").value_or("UTC"));
  cell.locale = checked_locale(optional_string(body, "locale").value_or("en-US"));
  cell.created_at = cell.updated_at = utc_timestamp_now();
  store_.write([&](Connection& db) {
    auto exists = db.prepare("SELECT 1 FROM cells WHERE id = ?");
    if (exists.bind(1, cell.id).step()) throw conflict("cell '" + cell.id + "' already exists");
    db.prepare(
          "INSERT INTO cells(id, timezone, locale, created_at, updated_at) "
          "VALUES (?, ?, ?, ?, ?)")
        .bind(1, cell.id)
        .bind(2, cell.timezone)
        .bind(3, cell.locale)
        .bind(4, cell.created_at)
        .bind(5, cell.updated_at)
        .run();
  });
  log_info("cell created", {{"cell", cell.id}});
  return cell;
}

std::optional<Cell> CellService::find(const std::string& id) const {
  std::optional<Cell> cell;
  store_.read([&](Connection& db) {
    auto row = db.prepare(std::string("SELECT ") + kColumns + " FROM cells WHERE id = ?");
    if (row.bind(1, id).step()) cell = read_cell(row);
  });
  return cell;
}

std::optional<int64_t> CellService::incarnation(const std::string& id) const {
  uint64_t deletions = 0;
  {
    std::shared_lock<std::shared_mutex> lock(known_mutex_);
    if (auto known = known_.find(id); known != known_.end()) return known->second;
    deletions = deletions_;
  }
  std::optional<int64_t> seq;
  store_.read([&](Connection& db) {
    auto row = db.prepare("SELECT seq FROM cells WHERE id = ?");
    if (row.bind(1, id).step()) seq = row.column_int(0);
  });
  if (!seq) return std::nullopt;
  std::unique_lock<std::shared_mutex> lock(known_mutex_);
  if (deletions == deletions_) known_.emplace(id, *seq);
  return seq;
}

std::optional<CellFence::Hold> CellService::hold(const std::string& id,
                                                 std::optional<int64_t> seq) const {
  CellFence::Hold held = fence_.hold(id);
  const std::optional<int64_t> now = incarnation(id);
  if (!now || (seq && *seq != *now)) return std::nullopt;
  return held;
}

nlohmann::json CellService::list(const PageRequest& page) const {
  nlohmann::json body;
  store_.read([&](Connection& db) {
    auto rows = db.prepare(std::string("SELECT ") + kColumns +
                           " FROM cells WHERE seq < ? ORDER BY seq DESC LIMIT ?");
    rows.bind(1, page.after.value_or(INT64_MAX)).bind(2, int64_t{page.limit} + 1);
    body =
        read_page(rows, page.limit, [](const Statement& row) { return to_json(read_cell(row)); });
  });
  return body;
}

Cell CellService::update(const std::string& id, const nlohmann::json& body) {
  require_object(body);
  if (body.contains("id")) throw invalid("field 'id' cannot be changed");
  reject_unknown_fields(body, {"timezone", "locale"});
  reject_null_fields(body, {"timezone", "locale"});
  auto timezone = optional_string(body, "timezone");
  auto locale = optional_string(body, "locale");
  if (timezone) checked_timezone(*timezone);
  if (locale) checked_locale(*locale);
  std::optional<Cell> updated;
  store_.write([&](Connection& db) {
    auto row = db.prepare(std::string("SELECT ") + kColumns + " FROM cells WHERE id = ?");
    if (!row.bind(1, id).step()) throw not_found("cell '" + id + "' not found");
    Cell cell = read_cell(row);
    updated = cell;
    if (timezone) cell.timezone = *timezone;
    if (locale) cell.locale = *locale;
    // A PATCH that changes nothing leaves the cell, updated_at too, as it was.
    if (cell.timezone == updated->timezone && cell.locale == updated->locale) return;
    cell.updated_at = utc_timestamp_now();
    db.prepare("UPDATE cells SET timezone = ?, locale = ?, updated_at = ? WHERE id = ?")
        .bind(1, cell.timezone)
        .bind(2, cell.locale)
        .bind(3, cell.updated_at)
        .bind(4, id)
        .run();
    updated = cell;
  });
  return *updated;
}

bool CellService::record_mode() {
  constexpr const char* kMetaKey = "cell_mode";
  const std::string now = single_cell_ ? "single" : "multi";
  std::optional<std::string> before;
  store_.read([&](Connection& db) { before = meta_value(db, kMetaKey); });
  if (before == now) return false;  // a start like the last writes nothing
  store_.write([&](Connection& db) { set_meta_value(db, kMetaKey, now); });
  return before == "single";
}

void CellService::remove(const std::string& id) {
  if (single_cell_ && id == kDefaultCellId)
    throw conflict("the default cell cannot be deleted in single-cell mode");
  // Until what the cell held is gone and it is known to be gone; the forgets below
  // may come after, as they drop only what reads cached.
  CellFence::Closed closed = fence_.close(id);
  store_.write([&](Connection& db) {
    auto gone = db.prepare("DELETE FROM cells WHERE id = ?");
    gone.bind(1, id).run();
    if (db.changes() == 0) throw not_found("cell '" + id + "' not found");
    for (const auto& cleanup : cleanups_) cleanup(db, id);
  });
  {
    std::unique_lock<std::shared_mutex> lock(known_mutex_);
    ++deletions_;
    known_.erase(id);
  }
  closed.unlock();
  for (const auto& forget : forgets_) forget(id);
  log_info("cell deleted", {{"cell", id}});
}

}  // namespace agentrt::core
