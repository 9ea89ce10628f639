#include "server/http/audit_context.h"

#include "core/store/sqlite.h"
#include "server/http/api_error.h"
#include "server/http/peer_address.h"
#include "server/http/token_shapes.h"

namespace agentrt::server {
namespace {

// Longer than any name or id the API makes or takes; a path parameter may be longer.
constexpr size_t kMaxTextBytes = 256;

std::string cut_utf8(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return std::string(text.substr(0, end));
}

}  // namespace

std::optional<std::string> audit_text(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::string scratch;
  return cut_utf8(redact_token_shapes(text, scratch), kMaxTextBytes);
}

core::AuditEntry audit_entry_for(const RequestContext& ctx, std::string action) {
  core::AuditEntry entry;
  entry.at_ms = core::unix_ms_now();
  entry.action = std::move(action);
  if (ctx.principal) {
    entry.actor = audit_text(ctx.principal->actor);
    entry.token_id = audit_text(ctx.principal->token_id);
  }
  entry.peer = audit_text(peer_address(ctx.client_socket));
  entry.request_id = audit_text(ctx.request_id);
  entry.cell = audit_text(ctx.cell);
  return entry;
}

void set_audit_failure(core::AuditEntry& entry, const std::exception_ptr& error) {
  const auto set = [&entry](const ApiError& e) {
    entry.status = e.http_status();
    entry.error = e.code();
  };
  try {
    std::rethrow_exception(error);
  } catch (const ApiError& e) {
    set(e);
  } catch (const core::DomainError& e) {
    set(e.kind() == core::ErrorKind::internal ? ApiError(ErrorCode::internal, "")
                                              : from_domain_error(e));
  } catch (const core::StoreError& e) {
    set(e.for_now() ? from_domain_error(core::DomainError(core::ErrorKind::unavailable, ""))
                    : ApiError(ErrorCode::internal, ""));
  } catch (...) {
    set(ApiError(ErrorCode::internal, ""));
  }
}

}  // namespace agentrt::server
