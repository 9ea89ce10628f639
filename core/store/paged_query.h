// Reads one page of a list query whose first column is the row's position (its seq)
// and which was asked for limit + 1 rows: the extra row only says there is more. Rows
// `keep` refuses are passed over (a walk that filters as it goes).
#pragma once

#include "core/domain/paging.h"
#include "core/store/sqlite.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <utility>

namespace agentrt::core {

// Rows past `budget` of `bytes_of` end the page early, its cursor set; a page always
// holds its first row. A page of 500 large rows was built whole in memory, gigabytes
// for a single request: `limit` is a maximum.
template <class RowToJson, class Keep, class RowBytes>
nlohmann::json read_page(Statement& rows, int limit, RowToJson&& to_json, Keep&& keep,
                         size_t budget, RowBytes&& bytes_of) {
  nlohmann::json data = nlohmann::json::array();
  int64_t last = 0;
  bool more = false;
  size_t bytes = 0;
  while (rows.step()) {
    if (!keep(rows)) continue;
    bytes += bytes_of(rows);
    if (static_cast<int>(data.size()) == limit || (!data.empty() && bytes > budget)) {
      more = true;
      break;
    }
    data.push_back(to_json(rows));
    last = rows.column_int(0);
  }
  return page_body(std::move(data), more, last);
}

inline bool every_row(const Statement&) {
  return true;
}
inline size_t no_bytes(const Statement&) {
  return 0;
}

template <class RowToJson, class Keep>
nlohmann::json read_page(Statement& rows, int limit, RowToJson&& to_json, Keep&& keep) {
  return read_page(rows, limit, std::forward<RowToJson>(to_json), std::forward<Keep>(keep),
                   SIZE_MAX, no_bytes);
}

template <class RowToJson, class RowBytes>
nlohmann::json read_page_within(Statement& rows, int limit, size_t budget, RowBytes&& bytes_of,
                                RowToJson&& to_json) {
  return read_page(rows, limit, std::forward<RowToJson>(to_json), every_row, budget,
                   std::forward<RowBytes>(bytes_of));
}

template <class RowToJson>
nlohmann::json read_page(Statement& rows, int limit, RowToJson&& to_json) {
  return read_page(rows, limit, std::forward<RowToJson>(to_json), every_row, SIZE_MAX, no_bytes);
}

}  // namespace agentrt::core
