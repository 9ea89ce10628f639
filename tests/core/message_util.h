// Messages for the core's tests, made from a content given as a JSON document.
#pragma once

#include "core/runs/context_window.h"
#include "core/sessions/session_store.h"

#include <nlohmann/json.hpp>

#include <string>

namespace agentrt::core::test_util {

// `content` as the store keeps it, estimated as a stored message is.
inline StoredMessage message_of(const std::string& role, const nlohmann::json& content) {
  StoredMessage m{role, content.dump()};
  estimate_stored(m);
  return m;
}

}  // namespace agentrt::core::test_util
