// A response read back from its run (docs/openai-compatible.md): GET /v1/responses/{id}
// as the object, or with stream=true as its events replayed and then followed, and
// POST /v1/responses/{id}/cancel. Each is derived from the run's stored (or live)
// events, so a replay gives the sequence numbers the run's own stream had.
#pragma once

#include "core/auth/principal.h"
#include "core/runs/run_service.h"

#include <chrono>
#include <string>

namespace agentrt::core::openai {

// The response object; one still under way is `in_progress` with no output yet.
std::string stored_response(RunService& runs, const std::string& cell, const Principal& who,
                            const std::string& id);
// The response's events after sequence_number `after` (-1: all), then those to come.
void replay_response(RunService& runs, const std::string& cell, const Principal& who,
                     const std::string& id, int64_t after, RunSink& out,
                     std::chrono::milliseconds idle);
// Interrupts a response under way and answers its object (`cancelled`); one that has
// finished is 400.
std::string cancel_response(RunService& runs, const std::string& cell, const Principal& who,
                            const std::string& id);

}  // namespace agentrt::core::openai
