#include "core/store/store_files.h"

#include "core/store/data_dir.h"
#include "core/store/meta.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace agentrt::core {
namespace {

constexpr const char* kMetaKey = "stores_beside_state";

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ",") + name;
  return out;
}

}  // namespace

bool store_holds_data(const std::string& path) {
  std::error_code error;
  for (const std::string& file : {path, path + "-wal"}) {
    const uintmax_t size = std::filesystem::file_size(file, error);
    if (!error && size > 0) return true;
  }
  return false;
}

std::vector<std::string> stores_beside_state(const std::string& data_dir) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(data_dir, error)) {
    const std::filesystem::path& path = entry.path();
    if (path.extension() == ".db" && path.filename() != "state.db" &&
        store_holds_data(path.string()))
      names.push_back(path.filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

void refuse_lost_stores(const StateStore& store, const std::string& data_dir) {
  std::string recorded;
  store.read([&](Connection& db) { recorded = meta_value(db, kMetaKey).value_or(""); });
  std::istringstream names(recorded);
  for (std::string name; std::getline(names, name, ',');) {
    if (name.empty() || store_holds_data(data_dir_file(data_dir, name.c_str()))) continue;
    throw StoreError("'" + name + "' is missing or empty, but the data dir held it at agentd's " +
                     "last start: restore it from a backup taken with state.db, or move the " +
                     "data dir's files away to start afresh. To go on without it on purpose, " +
                     "delete the key '" + kMetaKey + "' from state.db's meta table");
  }
}

void record_stores(StateStore& store, const std::string& data_dir) {
  const std::string names = joined(stores_beside_state(data_dir));
  store.write([&](Connection& db) { set_meta_value(db, kMetaKey, names); });
}

}  // namespace agentrt::core
