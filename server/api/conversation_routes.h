// Conversations and sessions: /run (SSE), /chat, /runs/{runID}/events and /sessions.
// Cell routes: the auth middleware has already checked the token, the cell and its
// existence; these handlers pass the principal on so the actor rule applies.
#pragma once

#include "core/engine/engine.h"
#include "server/http/router.h"

namespace agentrt::server::api {

void add_conversation_routes(Router& router, core::Engine& engine);
void add_session_routes(Router& router, core::Engine& engine);

}  // namespace agentrt::server::api
