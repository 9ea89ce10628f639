// The `messages` of a Chat Completions request (docs/openai-compatible.md) as the
// messages of a stateless run, in the store's form (core/sessions/session_store.h), one
// for one so that an index names the same message in both:
//   system, developer -> system (text parts)
//   user              -> user (text and image_url parts)
//   assistant         -> assistant (its text, then a tool_call part per tool_calls entry)
//   tool              -> tool (one tool_result part answering tool_call_id)
// Refused (400 naming the field as OpenAI does): another role or part type, and tool
// messages that do not answer the calls of the assistant message before them, each
// once, before the next message of another role (OpenAI's own rule, which every vendor
// enforces).
#pragma once

#include "core/sessions/session_store.h"

#include <simdjson.h>

#include <vector>

namespace agentrt::core::openai {

std::vector<StoredMessage> read_chat_messages(simdjson::dom::element messages);

}  // namespace agentrt::core::openai
