// Token rows in <data_dir>/auth.db. Holds the only connection and serialises every use
// of it, which is what lets the plugin declare itself thread-safe.
#pragma once

#include "sqlite_db.h"
#include "token_format.h"

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace agentrt::auth_token {

struct TokenRecord {
  std::string id;
  std::string actor;
  std::optional<std::string> cell;
  bool admin = false;
  int64_t created_at = 0;
  std::optional<int64_t> expires_at;  // unset: never expires
  std::optional<int64_t> revoked_at;
  int64_t issued = 0;  // 1, 2, ...: the order of issue, newest highest
};

struct StoredToken {
  TokenRecord record;
  Sha256Digest secret_hash;
};

// Where the previous page ended, in the list order (issued DESC); the id only makes
// a cursor recognisable as one of this list's.
struct ListPosition {
  int64_t issued = 0;
  std::string id;
};

struct ListQuery {
  int limit = 50;
  std::optional<ListPosition> after;
  std::optional<bool> admin;
  int64_t now = 0;  // unix seconds: tokens expired by then are not listed
};

struct ListPage {
  std::vector<TokenRecord> records;
  bool has_more = false;
};

struct StoreConfig {
  std::string data_dir;
  bool guest = false;  // ABI 1.6: beside a serving agentd; upgrade and remove nothing
};

class TokenStore {
 public:
  // Opens or creates data_dir/auth.db (mode 0600), brings its schema up to date and
  // removes every dead token due (prune). Each insert removes a few more.
  // As a guest (ABI 1.6) it refuses a missing or older store and removes nothing.
  explicit TokenStore(const StoreConfig& config);

  // False when the id is already taken (the caller draws a new one).
  bool insert(const TokenRecord& record, const Sha256Digest& secret_hash);
  // Every authenticated request asks, so rows read are kept for a second: a revoke
  // through this store drops its row at once; the second bounds how long a revoke
  // made by another process on the same data dir can go unseen.
  std::optional<StoredToken> find(const std::string& id);
  // Live tokens only: neither revoked nor expired at `query.now`.
  ListPage list(const ListQuery& query);
  // False when no live token has this id.
  bool revoke(const std::string& id, int64_t now);
  // The host's probe (ABI 1.5): throws unless the store takes a write now.
  void probe();

 private:
  // Removes up to `limit` (-1: all) rows of each kind of dead token that died more
  // than the keeping time before `now`. Needs mutex_ held, or the constructor.
  void prune(int64_t now, int64_t limit);

  std::mutex mutex_;
  Database db_;
  Statement insert_;
  Statement find_;
  Statement list_;
  Statement revoke_;
  Statement prune_expired_;
  Statement prune_revoked_;
  Statement dead_due_;
  bool guest_ = false;
  struct Cached {
    StoredToken token;
    std::chrono::steady_clock::time_point read_at;
  };
  std::unordered_map<std::string, Cached> cache_;
};

}  // namespace agentrt::auth_token
