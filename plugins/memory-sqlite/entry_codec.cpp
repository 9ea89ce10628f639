#include "entry_codec.h"

#include "ids_and_time.h"
#include "layers.h"

#include <agentrt/plugin.hpp>

namespace agentrt::memory_sqlite {
namespace {

using nlohmann::json;

json nullable(const std::optional<std::string>& value) {
  return value ? json(*value) : json(nullptr);
}

}  // namespace

EntryRow read_entry_row(const Statement& s) {
  EntryRow r;
  r.id = s.column_text(0);
  r.layer = static_cast<int>(s.column_int(1));
  r.requested_layer = s.column_optional_text(2);
  r.actor = s.column_text(3);
  r.ns = s.column_optional_text(4);
  r.session_id = s.column_optional_text(5);
  r.content = s.column_text(6);
  r.metadata_json = s.column_text(7);
  r.created_at = s.column_int(8);
  r.updated_at = s.column_int(9);
  r.seq = s.column_int(10);
  return r;
}

json entry_json(const EntryRow& row) {
  // Saved as the dump of a JSON object; anything else means the file was damaged.
  json metadata = json::parse(row.metadata_json, nullptr, /*allow_exceptions=*/false);
  if (!metadata.is_object())
    throw sdk::Error(AGENTRT_ERR_INTERNAL, "memory-sqlite: stored metadata is not an object");
  json out = {{"id", row.id},
              {"layer", std::string(kLayerNames.at(static_cast<size_t>(row.layer)))},
              {"content", row.content},
              {"namespace", nullable(row.ns)},
              {"actor", row.actor},
              {"session_id", nullable(row.session_id)},
              {"metadata", std::move(metadata)},
              {"created_at", iso8601_ms(row.created_at)},
              {"updated_at", iso8601_ms(row.updated_at)}};
  if (row.requested_layer) out["requested_layer"] = *row.requested_layer;
  return out;
}

}  // namespace agentrt::memory_sqlite
