#include "core/store/cursor_key.h"

#include "core/domain/ids.h"
#include "core/store/meta.h"

namespace agentrt::core {
namespace {

constexpr const char* kMetaKey = "cursor_key";

}  // namespace

std::string cursor_key(StateStore& store) {
  std::optional<std::string> key;
  store.read([&](Connection& db) { key = meta_value(db, kMetaKey); });
  if (key) return *key;  // every start but the first: nothing to write
  const std::string made = random_hex(16);
  store.write([&](Connection& db) { set_meta_value(db, kMetaKey, made); });
  return made;
}

}  // namespace agentrt::core
