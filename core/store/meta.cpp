#include "core/store/meta.h"

namespace agentrt::core {

std::optional<std::string> meta_value(Connection& db, const char* key) {
  auto row = db.prepare("SELECT value FROM meta WHERE key = ?");
  if (!row.bind(1, key).step()) return std::nullopt;
  return row.column_text(0);
}

void set_meta_value(Connection& db, const char* key, const std::string& value) {
  db.prepare(
        "INSERT INTO meta(key, value) VALUES(?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value")
      .bind(1, key)
      .bind(2, value)
      .run();
}

}  // namespace agentrt::core
