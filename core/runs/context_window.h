// What of a session's history goes upstream. Tokens are estimated, not counted: 4 bytes
// of text a token (rounded up), 256 tokens an image, and 4 tokens a message for role and
// framing. The new messages always go; earlier messages are dropped oldest first until
// the estimate fits the model's context window less the tokens reserved for the answer
// (the request's max_tokens). A history that would then start with an assistant turn
// loses that turn too, since some vendors require the first message to be the user's.
#pragma once

#include "core/sessions/session_store.h"

#include <optional>
#include <vector>

namespace agentrt::core {

int64_t estimate_tokens(const StoredMessage& message);

// The messages to send: trimmed history then `fresh`. Throws invalid() when `fresh`
// alone does not fit.
std::vector<StoredMessage> fit_context(const std::vector<StoredMessage>& history,
                                       const std::vector<StoredMessage>& fresh,
                                       int64_t context_window, std::optional<int64_t> reserved);

}  // namespace agentrt::core
