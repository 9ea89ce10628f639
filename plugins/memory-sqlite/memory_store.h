// The store behind the memory-backend operations. One writer connection behind a
// mutex; reads (get, list, count, search) run on pooled read-only connections and never
// wait for a write. Every statement is scoped by the request's cell.
#pragma once

#include "connection.h"
#include "entry_codec.h"
#include "reader_pool.h"
#include "requests.h"
#include "search.h"

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace agentrt::memory_sqlite {

struct ListPage {
  std::vector<EntryRow> rows;
  bool has_more = false;
};

using LayerCounts = std::array<int64_t, kLayerCount>;

class MemoryStore {
 public:
  explicit MemoryStore(const Config& config);

  EntryRow save(const SaveRequest& request);
  std::optional<EntryRow> get(const IdRequest& request);
  ListPage list(const ListRequest& request);
  bool remove(const IdRequest& request);
  int64_t clear_layer(const LayerRequest& request);
  LayerCounts count(const Filter& filter);
  std::vector<SearchHit> search(const SearchRequest& request);
  int64_t delete_by_session(const SessionRequest& request);
  // The host's probe (ABI 1.5): throws unless the store takes a write now.
  void probe();

 private:
  const Config config_;
  const std::string path_;  // <data_dir>/memory.db
  std::mutex write_mutex_;
  std::unique_ptr<Connection> writer_;
  ReaderPool readers_;
};

}  // namespace agentrt::memory_sqlite
