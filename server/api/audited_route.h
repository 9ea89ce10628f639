// An admin write route whose every call, done or refused, leaves one entry in the audit
// log (core/audit/audit_log.h). The entry rides in the transaction of the action's own
// write to the state store when it has one (StateStore::Companion); otherwise, and when
// the action fails, it is written right after, before the response goes out, so that a
// client that has its answer finds the entry.
#pragma once

#include "core/audit/audit_entry.h"
#include "core/engine/engine.h"
#include "server/http/router.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>

namespace agentrt::server::api {

// Does the action and answers its body, or none for a 204. Sets what it acts on in the
// entry (target, cell) before the action writes, as the entry is written with it.
using AuditedAction =
    std::function<std::optional<nlohmann::json>(RequestContext&, core::AuditEntry&)>;

// A handler that runs `action` and answers `ok_status` with its body, recorded as
// `name` ("cell.create").
Handler audited(core::Engine& engine, std::string name, int ok_status, AuditedAction action);

// The names of the objects of a body's `list` ("providers": [{"name": ...}]), joined with
// commas, for an entry's target; none when it names none.
std::optional<std::string> names_in(const nlohmann::json& body, const char* list);

}  // namespace agentrt::server::api
