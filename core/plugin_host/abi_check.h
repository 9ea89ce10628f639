// The checks a plugin's descriptor and table must pass before the host calls anything
// in it but the query function. Each failure is a sentence naming what differs.
#pragma once

#include <agentrt/agentrt_plugin.h>

#include <cstddef>
#include <optional>
#include <string>

namespace agentrt::core {

// Sizes of the 1.0 structs, fixed for ever: the offset of each struct's last 1.0
// field plus its size. sizeof() grows with later minors; these never do.
constexpr size_t kDescriptorSize_1_0 =
    offsetof(agentrt_plugin_descriptor_t, vtable) + sizeof(const void*);
constexpr size_t kProviderTableSize_1_0 =
    offsetof(agentrt_provider_vtable_t, list_models) + sizeof(void*);
constexpr size_t kMemoryTableSize_1_0 =
    offsetof(agentrt_memory_vtable_t, delete_by_session) + sizeof(void*);
constexpr size_t kAuthTableSize_1_0 = offsetof(agentrt_auth_vtable_t, revoke) + sizeof(void*);
// The tool kind came with 1.9: its first table ends with `call`.
constexpr size_t kToolTableSize_1_9 = offsetof(agentrt_tool_vtable_t, call) + sizeof(void*);

// Magic, major version and descriptor size: read before any other field.
std::optional<std::string> check_abi_facts(const agentrt_plugin_descriptor_t& raw);

// Kind, name, version and table presence of a descriptor already copied to host size.
std::optional<std::string> check_descriptor(const agentrt_plugin_descriptor_t& d);

// The first released size of the table of `kind` (1.0's, or the minor's that brought the
// kind), or 0 for an unknown kind.
size_t table_size_1_0(uint32_t kind);

// Required functions of a table copied to host size (zero-filled beyond the plugin's).
std::optional<std::string> check_provider_table(const agentrt_provider_vtable_t& t);
std::optional<std::string> check_memory_table(const agentrt_memory_vtable_t& t);
std::optional<std::string> check_auth_table(const agentrt_auth_vtable_t& t);
std::optional<std::string> check_tool_table(const agentrt_tool_vtable_t& t);

// [a-z0-9_-]{1,63}, starting with a letter or digit.
bool valid_plugin_name(const char* name);

}  // namespace agentrt::core
