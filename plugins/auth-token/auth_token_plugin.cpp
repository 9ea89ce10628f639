// The bundled auth module: opaque "art_" bearer tokens whose secrets exist only in the
// issue response; the store keeps their SHA-256. See docs/plugin-author-guide.md for
// the ABI and docs/openapi.yaml (tokens) for the policy.
#include "list_cursor.h"
#include "requests.h"
#include "sqlite-common/migrations.h"
#include "time_format.h"
#include "token_format.h"
#include "token_store.h"

#include <agentrt/plugin.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>

namespace agentrt::auth_token {
namespace {

using nlohmann::json;
using sdk::Error;

json optional_string(const std::optional<std::string>& value) {
  return value ? json(*value) : json(nullptr);
}

json optional_time(const std::optional<int64_t>& unix_seconds) {
  return unix_seconds ? json(iso8601_utc(*unix_seconds)) : json(nullptr);
}

// How long the host may reuse a verification. Tokens of this module change only through
// the host (revoke), which forgets what it kept; the window ends a second early, so a
// kept verification never outlives the token's expiry whatever the fraction of the
// current second.
int64_t reuse_seconds(const std::optional<int64_t>& expires_at, int64_t now) {
  constexpr int64_t kReuse = 60;
  if (!expires_at) return kReuse;
  return std::clamp<int64_t>(*expires_at - now - 1, 0, kReuse);
}

// The public face of a token: everything but the secret.
json record_json(const TokenRecord& r) {
  return {{"id", r.id},
          {"actor", r.actor},
          {"cell", optional_string(r.cell)},
          {"admin", r.admin},
          {"expires_at", optional_time(r.expires_at)},
          {"created_at", iso8601_utc(r.created_at)}};
}

[[noreturn]] void unauthenticated(const char* reason) {
  throw Error(AGENTRT_ERR_UNAUTHENTICATED, reason);
}

// Random 64-bit ids collide about once in 4 billion issues at a million tokens;
// a few redraws make a failure practically impossible without looping forever.
constexpr int kIssueAttempts = 4;

// The config, once the store's schema steps are set to go to the host's log.
StoreConfig logged(StoreConfig config, const sdk::Host& host) {
  plugin_sqlite::log_migrations_to(host);
  return config;
}

class AuthTokenPlugin : public sdk::Auth {
 public:
  AuthTokenPlugin(const sdk::Host& host, const std::string& config_json)
      : store_(logged(parse_config(config_json), host)) {
    host.log(AGENTRT_LOG_DEBUG, "auth-token store ready");
  }

  std::string verify(const std::string& request_json) override {
    std::string token = parse_verify_request(request_json);
    std::optional<TokenParts> parts = parse_token(token);
    if (!parts) unauthenticated("malformed token");
    Sha256Digest presented = hash_secret(parts->secret);
    std::optional<StoredToken> stored = store_.find(parts->id);
    if (!stored) unauthenticated("unknown token");
    // A wrong secret looks exactly like a missing id: the caller learns nothing about
    // which ids exist, and revocation or expiry is only told to the secret's holder.
    if (!constant_time_equal(presented, stored->secret_hash)) unauthenticated("unknown token");
    const TokenRecord& r = stored->record;
    if (r.revoked_at) unauthenticated("token revoked");
    const int64_t now = now_unix_seconds();
    if (r.expires_at && now >= *r.expires_at) unauthenticated("token expired");
    return json{{"token_id", r.id},
                {"actor", r.actor},
                {"cell", optional_string(r.cell)},
                {"admin", r.admin},
                {"expires_at", optional_time(r.expires_at)},
                {"cache_s", reuse_seconds(r.expires_at, now)}}
        .dump();
  }

  std::string issue(const std::string& request_json) override {
    IssueRequest request = parse_issue_request(request_json);
    TokenRecord r;
    r.actor = request.actor;
    r.cell = request.cell;
    r.admin = request.admin;
    const auto now = std::chrono::system_clock::now();
    r.created_at = unix_seconds_floor(now);
    // The first whole second at which the ttl has passed: the token lives at least its
    // ttl, where `created_at + ttl` took up to a second of it away.
    if (request.ttl_s) r.expires_at = unix_seconds_ceil(now) + *request.ttl_s;
    for (int attempt = 0; attempt < kIssueAttempts; ++attempt) {
      NewToken token = generate_token();
      r.id = token.parts.id;
      if (!store_.insert(r, hash_secret(token.parts.secret))) continue;
      json out = record_json(r);
      out["token"] = token.token;
      return out.dump();
    }
    throw Error(AGENTRT_ERR_INTERNAL, "auth-token: could not draw an unused token id");
  }

  std::string list(const std::string& request_json) override {
    ListQuery query = parse_list_request(request_json);
    query.now = now_unix_seconds();
    ListPage page = store_.list(query);
    json data = json::array();
    for (const TokenRecord& r : page.records) data.push_back(record_json(r));
    json next = nullptr;
    if (page.has_more) {
      const TokenRecord& last = page.records.back();
      next = encode_cursor({last.issued, last.id});
    }
    return json{{"data", std::move(data)}, {"next_cursor", std::move(next)}}.dump();
  }

  std::string revoke(const std::string& request_json) override {
    std::string id = parse_revoke_request(request_json);
    if (!is_token_id(id) || !store_.revoke(id, now_unix_seconds()))
      throw Error(AGENTRT_ERR_NOT_FOUND, "token not found");
    return json{{"revoked", true}, {"id", id}}.dump();
  }

  std::string probe(const std::string&) override {
    store_.probe();
    return "{}";
  }

 private:
  TokenStore store_;
};

}  // namespace
}  // namespace agentrt::auth_token

AGENTRT_PLUGIN(agentrt::auth_token::AuthTokenPlugin, "auth-token", "1.0.0",
               "Opaque art_ bearer tokens; only their SHA-256 is stored (SQLite)",
               AGENTRT_FLAG_THREAD_SAFE)
