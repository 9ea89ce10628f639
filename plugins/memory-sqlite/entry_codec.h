// Entries between their row form and their JSON form (the contract's entry object).
#pragma once

#include "sqlite_db.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace agentrt::memory_sqlite {

struct EntryRow {
  std::string id;
  int layer = 0;
  std::optional<std::string> requested_layer;
  std::string actor;
  std::optional<std::string> ns;
  std::optional<std::string> session_id;
  std::string content;
  std::string metadata_json;
  int64_t created_at = 0;  // Unix ms
  int64_t updated_at = 0;
  int64_t seq = 0;
};

// What one answer's entries may hold, as content and metadata: a list page or a search
// answer ends before it passes this, but always holds its first entry (a page's cursor
// goes on from its last). 500 entries of documents made answers of gigabytes, built
// whole in memory and then refused by the host's 64 MiB output cap with a 500. Escaped
// as JSON, 8 MiB of text stays under that cap.
constexpr size_t kAnswerBytes = 8 << 20;
inline size_t entry_bytes(const EntryRow& row) {
  return row.content.size() + row.metadata_json.size();
}

// Reads a row selected with kEntryColumns (filter_sql.h), starting at column 0.
EntryRow read_entry_row(const Statement& s);

// {"id","layer","content","namespace","actor","session_id","metadata","created_at",
//  "updated_at"} plus "requested_layer" when the row has one.
nlohmann::json entry_json(const EntryRow& row);

}  // namespace agentrt::memory_sqlite
