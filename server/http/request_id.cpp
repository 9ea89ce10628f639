#include "server/http/request_id.h"

#include "server/http/token_shapes.h"

#include <cstdint>
#include <random>

namespace agentrt::server {

bool is_valid_request_id(std::string_view id) {
  if (id.empty() || id.size() > kMaxRequestIdLength) return false;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string generate_request_id() {
  // Ids only need to be unique enough to correlate log lines, not unguessable, so a
  // per-thread generator (no lock on the hot path) seeded once from the OS is enough.
  thread_local std::mt19937_64 generator{(static_cast<uint64_t>(std::random_device{}()) << 32) ^
                                         std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  uint64_t bits = generator();
  std::string id(16, '0');
  for (char& c : id) {
    c = kHex[bits & 0xf];
    bits >>= 4;
  }
  return id;
}

std::string choose_request_id(std::string_view client_id) {
  // A token pasted here fits the id's alphabet and would go into the log whole, against
  // "tokens never reach the log" (docs/operator-guide.md): an id holding one is replaced.
  std::string scratch;
  if (is_valid_request_id(client_id) && redact_token_shapes(client_id, scratch) == client_id)
    return std::string(client_id);
  return generate_request_id();
}

}  // namespace agentrt::server
