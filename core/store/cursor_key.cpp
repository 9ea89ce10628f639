#include "core/store/cursor_key.h"

#include "core/domain/ids.h"

namespace agentrt::core {
namespace {

constexpr const char* kMetaKey = "cursor_key";

}  // namespace

std::string cursor_key(StateStore& store) {
  std::string key;
  store.write([&](Connection& db) {
    db.prepare("INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO NOTHING")
        .bind(1, kMetaKey)
        .bind(2, random_hex(16))
        .run();
    auto row = db.prepare("SELECT value FROM meta WHERE key = ?");
    if (row.bind(1, kMetaKey).step()) key = row.column_text(0);
  });
  return key;
}

}  // namespace agentrt::core
