#include "core/plugin_host/abi_check.h"

#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <utility>

namespace agentrt::core {
namespace {

std::string hex32(uint32_t value) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", value);
  return buf;
}

using Required = std::initializer_list<std::pair<const char*, const void*>>;

std::optional<std::string> first_missing(const char* table, Required functions) {
  for (const auto& [name, fn] : functions) {
    if (fn == nullptr)
      return std::string("required function '") + name + "' of the " + table + " table is missing";
  }
  return std::nullopt;
}

template <class Fn>
const void* addr(Fn fn) {
  return reinterpret_cast<const void*>(fn);
}

}  // namespace

std::optional<std::string> check_abi_facts(const agentrt_plugin_descriptor_t& raw) {
  if (raw.magic != AGENTRT_ABI_MAGIC)
    return "bad magic " + hex32(raw.magic) + " (expected " + hex32(AGENTRT_ABI_MAGIC) + ")";
  if (raw.abi_major != AGENTRT_ABI_MAJOR)
    return "ABI major version " + std::to_string(raw.abi_major) +
           " is not supported (this host speaks " + std::to_string(AGENTRT_ABI_MAJOR) + ".x)";
  if (raw.struct_size < kDescriptorSize_1_0)
    return "descriptor struct_size " + std::to_string(raw.struct_size) +
           " is smaller than the 1.0 size " + std::to_string(kDescriptorSize_1_0);
  return std::nullopt;
}

bool valid_plugin_name(const char* name) {
  if (name == nullptr || name[0] == '\0' || name[0] == '-' || name[0] == '_') return false;
  size_t length = 0;
  for (const char* p = name; *p; ++p, ++length) {
    bool ok = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-';
    if (!ok || length >= 63) return false;
  }
  return true;
}

std::optional<std::string> check_descriptor(const agentrt_plugin_descriptor_t& d) {
  if (table_size_1_0(d.kind) == 0) return "unknown plugin kind " + std::to_string(d.kind);
  if (!valid_plugin_name(d.name))
    return "plugin name is missing or not [a-z0-9_-]{1,63} starting with a letter or digit";
  if (d.version == nullptr || d.version[0] == '\0') return "plugin version is missing";
  if (d.vtable == nullptr) return "function table is missing";
  return std::nullopt;
}

size_t table_size_1_0(uint32_t kind) {
  switch (kind) {
    case AGENTRT_KIND_PROVIDER:
      return kProviderTableSize_1_0;
    case AGENTRT_KIND_MEMORY_BACKEND:
      return kMemoryTableSize_1_0;
    case AGENTRT_KIND_AUTH:
      return kAuthTableSize_1_0;
    case AGENTRT_KIND_TOOL:
      return kToolTableSize_1_9;
    default:
      return 0;
  }
}

std::optional<std::string> check_provider_table(const agentrt_provider_vtable_t& t) {
  return first_missing("provider", {{"create", addr(t.create)},
                                    {"destroy", addr(t.destroy)},
                                    {"complete", addr(t.complete)},
                                    {"list_models", addr(t.list_models)}});
}

std::optional<std::string> check_memory_table(const agentrt_memory_vtable_t& t) {
  return first_missing("memory backend", {{"create", addr(t.create)},
                                          {"destroy", addr(t.destroy)},
                                          {"save", addr(t.save)},
                                          {"get", addr(t.get)},
                                          {"list", addr(t.list)},
                                          {"remove", addr(t.remove)},
                                          {"clear_layer", addr(t.clear_layer)},
                                          {"count", addr(t.count)},
                                          {"search", addr(t.search)},
                                          {"delete_by_session", addr(t.delete_by_session)}});
}

std::optional<std::string> check_auth_table(const agentrt_auth_vtable_t& t) {
  return first_missing("auth", {{"create", addr(t.create)},
                                {"destroy", addr(t.destroy)},
                                {"verify", addr(t.verify)},
                                {"issue", addr(t.issue)},
                                {"list", addr(t.list)},
                                {"revoke", addr(t.revoke)}});
}

std::optional<std::string> check_tool_table(const agentrt_tool_vtable_t& t) {
  return first_missing("tool", {{"create", addr(t.create)},
                                {"destroy", addr(t.destroy)},
                                {"list_tools", addr(t.list_tools)},
                                {"call", addr(t.call)}});
}

}  // namespace agentrt::core
