#include "sqlite_db.h"

#include <agentrt/plugin.hpp>

#include <cstring>

namespace agentrt::auth_token {

void bind_digest(Statement& s, int index, const Sha256Digest& digest) {
  s.bind_blob(index, digest.data(), digest.size());
}

Sha256Digest column_digest(const Statement& s, int column) {
  std::string_view blob = s.column_blob(column);
  Sha256Digest digest{};
  if (blob.size() != digest.size())
    throw sdk::Error(AGENTRT_ERR_INTERNAL, "auth-token: stored hash has the wrong size");
  std::memcpy(digest.data(), blob.data(), digest.size());
  return digest;
}

void bind_optional_int(Statement& s, int index, const std::optional<int64_t>& value) {
  if (value) {
    s.bind(index, *value);
  } else {
    s.bind_null(index);
  }
}

std::optional<int64_t> column_optional_int(const Statement& s, int column) {
  if (s.is_null(column)) return std::nullopt;
  return s.column_int(column);
}

}  // namespace agentrt::auth_token
