// Locks the 1.0 layout of every ABI struct. A failure here means a released field
// moved or changed size: that breaks every plugin already shipped. Append instead.
#include <agentrt/agentrt_plugin.h>

#include <gtest/gtest.h>

#include <cstddef>

extern "C" size_t agentrt_c99_descriptor_size(void);

namespace {

static_assert(sizeof(void*) == 8, "the layout below is the LP64 layout");

TEST(AbiLayout, VersionAndMagic) {
  EXPECT_EQ(AGENTRT_ABI_MAJOR, 1);
  EXPECT_GE(AGENTRT_ABI_MINOR, 0);
  EXPECT_EQ(AGENTRT_ABI_MAGIC, 0x54524741u);
  EXPECT_STREQ(AGENTRT_PLUGIN_QUERY_SYMBOL, "agentrt_plugin_query");
}

TEST(AbiLayout, Descriptor) {
  using T = agentrt_plugin_descriptor_t;
  EXPECT_EQ(offsetof(T, magic), 0u);
  EXPECT_EQ(offsetof(T, abi_major), 4u);
  EXPECT_EQ(offsetof(T, abi_minor), 6u);
  EXPECT_EQ(offsetof(T, struct_size), 8u);
  EXPECT_EQ(offsetof(T, kind), 12u);
  EXPECT_EQ(offsetof(T, name), 16u);
  EXPECT_EQ(offsetof(T, version), 24u);
  EXPECT_EQ(offsetof(T, description), 32u);
  EXPECT_EQ(offsetof(T, flags), 40u);
  EXPECT_EQ(offsetof(T, vtable), 48u);
  EXPECT_GE(sizeof(T), 56u);
  EXPECT_EQ(agentrt_c99_descriptor_size(), sizeof(T)) << "C and C++ disagree on the layout";
}

TEST(AbiLayout, Error) {
  using T = agentrt_error_t;
  EXPECT_EQ(offsetof(T, struct_size), 0u);
  EXPECT_EQ(offsetof(T, code), 4u);
  EXPECT_EQ(offsetof(T, http_status), 8u);
  EXPECT_EQ(offsetof(T, retry_after_ms), 12u);
  EXPECT_EQ(offsetof(T, message), 16u);
  EXPECT_EQ(sizeof(((T*)nullptr)->message), 512u);
}

TEST(AbiLayout, HostApi) {
  using T = agentrt_host_api_t;
  EXPECT_EQ(offsetof(T, struct_size), 0u);
  EXPECT_EQ(offsetof(T, abi_major), 4u);
  EXPECT_EQ(offsetof(T, abi_minor), 6u);
  EXPECT_EQ(offsetof(T, host), 8u);
  EXPECT_EQ(offsetof(T, log), 16u);
  EXPECT_EQ(offsetof(T, secret_lookup), 24u);
  EXPECT_EQ(offsetof(T, output_write), 32u);
  EXPECT_EQ(offsetof(T, sqlite_vfs), 40u);  // 1.3, appended
  EXPECT_GE(sizeof(T), 48u);
}

TEST(AbiLayout, Sink) {
  using T = agentrt_sink_t;
  EXPECT_EQ(offsetof(T, struct_size), 0u);
  EXPECT_EQ(offsetof(T, ctx), 8u);
  EXPECT_EQ(offsetof(T, emit), 16u);
  EXPECT_EQ(offsetof(T, is_cancelled), 24u);
  EXPECT_EQ(offsetof(T, set_waker), 32u);  // 1.1, appended
  EXPECT_EQ(offsetof(T, done), 40u);       // 1.2, appended
  EXPECT_GE(sizeof(T), 48u);
}

TEST(AbiLayout, ProviderTable) {
  using T = agentrt_provider_vtable_t;
  EXPECT_EQ(offsetof(T, struct_size), 0u);
  EXPECT_EQ(offsetof(T, create), 8u);
  EXPECT_EQ(offsetof(T, destroy), 16u);
  EXPECT_EQ(offsetof(T, complete), 24u);
  EXPECT_EQ(offsetof(T, list_models), 32u);
  EXPECT_EQ(offsetof(T, complete_async), 40u);  // 1.2, appended
  EXPECT_GE(sizeof(T), 48u);
}

TEST(AbiLayout, MemoryTable) {
  using T = agentrt_memory_vtable_t;
  EXPECT_EQ(offsetof(T, create), 8u);
  EXPECT_EQ(offsetof(T, destroy), 16u);
  EXPECT_EQ(offsetof(T, save), 24u);
  EXPECT_EQ(offsetof(T, get), 32u);
  EXPECT_EQ(offsetof(T, list), 40u);
  EXPECT_EQ(offsetof(T, remove), 48u);
  EXPECT_EQ(offsetof(T, clear_layer), 56u);
  EXPECT_EQ(offsetof(T, count), 64u);
  EXPECT_EQ(offsetof(T, search), 72u);
  EXPECT_EQ(offsetof(T, delete_by_session), 80u);
  EXPECT_EQ(offsetof(T, probe), 88u);  // 1.5
  EXPECT_GE(sizeof(T), 96u);
}

TEST(AbiLayout, AuthTable) {
  using T = agentrt_auth_vtable_t;
  EXPECT_EQ(offsetof(T, create), 8u);
  EXPECT_EQ(offsetof(T, destroy), 16u);
  EXPECT_EQ(offsetof(T, verify), 24u);
  EXPECT_EQ(offsetof(T, issue), 32u);
  EXPECT_EQ(offsetof(T, list), 40u);
  EXPECT_EQ(offsetof(T, revoke), 48u);
  EXPECT_EQ(offsetof(T, probe), 56u);  // 1.5
  EXPECT_GE(sizeof(T), 64u);
}

TEST(AbiLayout, ToolTable) {  // 1.9
  using T = agentrt_tool_vtable_t;
  EXPECT_EQ(offsetof(T, create), 8u);
  EXPECT_EQ(offsetof(T, destroy), 16u);
  EXPECT_EQ(offsetof(T, list_tools), 24u);
  EXPECT_EQ(offsetof(T, call), 32u);
  EXPECT_EQ(offsetof(T, probe), 40u);
  EXPECT_GE(sizeof(T), 48u);
  EXPECT_EQ(AGENTRT_KIND_TOOL, 4);
}

TEST(AbiLayout, HasFieldMacro) {
  EXPECT_TRUE(AGENTRT_HAS_FIELD(agentrt_host_api_t, output_write, 40));
  EXPECT_FALSE(AGENTRT_HAS_FIELD(agentrt_host_api_t, output_write, 39));
  EXPECT_FALSE(AGENTRT_HAS_FIELD(agentrt_host_api_t, log, 16));
}

}  // namespace
