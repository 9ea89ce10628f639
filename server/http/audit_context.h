// What a request tells the audit log (core/audit/audit_log.h) about who made it, and
// what became of it. Every text goes through audit_text, so that a token pasted where a
// name belongs is cut out before it is stored.
#pragma once

#include "core/audit/audit_entry.h"
#include "server/http/request_context.h"

#include <exception>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::server {

// `text` with any token shape redacted (token_shapes.h) and cut to a name's length at
// most; none for an empty text.
std::optional<std::string> audit_text(std::string_view text);

// An entry of `action` for `ctx`, now: the principal when there is one, the peer, the
// request id, and the cell of a cell route.
core::AuditEntry audit_entry_for(const RequestContext& ctx, std::string action);

// The status and error code the pipeline answers `error` with, set on `entry`.
void set_audit_failure(core::AuditEntry& entry, const std::exception_ptr& error);

}  // namespace agentrt::server
