// The host's side of the ABI: the callback table each plugin receives, and the
// output object plugins write variable-size results into.
#pragma once

#include <agentrt/agentrt_plugin.h>
#include "core/domain/secret_ref.h"

#include <memory>
#include <string>
#include <string_view>

// Declared opaque in agentrt_plugin.h; only the host sees its members.
struct agentrt_output_t {
  std::string data;
  size_t max_bytes = 64u * 1024 * 1024;  // a runaway plugin cannot exhaust memory
};

namespace agentrt::core {

// One per loaded plugin, so that log lines name the plugin that wrote them; and one
// more for each instance made from references the admin API wrote, whose lookups stay
// inside `fence` (core/domain/secret_ref.h) whatever thread the plugin asks from.
struct HostContext {
  explicit HostContext(std::string plugin_name, std::shared_ptr<const SecretFence> fence = nullptr);
  std::string plugin_name;
  std::shared_ptr<const SecretFence> fence;  // null: the config file's, resolved anywhere
  agentrt_host_api_t api{};
};

// Resolves {"source":"inline|env|file","value":...} to the secret; with a `fence`, only
// a reference it lets through. Throws std::invalid_argument (bad reference) or
// std::runtime_error (not available, or outside the fence); the message never contains
// the secret itself.
std::string resolve_secret(std::string_view ref_json, const SecretFence* fence = nullptr);

// A zero-filled error struct with struct_size set, as the ABI asks callers to pass.
agentrt_error_t make_error_struct();
// The struct's message, read no further than the struct even when the plugin left
// no NUL in it; `fallback` when it is empty.
std::string error_message(const agentrt_error_t& error, const char* fallback);

}  // namespace agentrt::core
