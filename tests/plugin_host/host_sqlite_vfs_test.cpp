// The SQLite VFS the host offers plugins (ABI 1.3 sqlite_vfs): the member stays in the
// table for plugins built against 1.3 or later, and agentd offers none, so such a
// plugin opens its store with SQLite's default VFS, as agentd's own stores do.
#include "core/plugin_host/host_api.h"

#include <gtest/gtest.h>
#include <agentrt/plugin.hpp>

namespace agentrt::core {
namespace {

TEST(HostSqliteVfs, TheHostOffersNoVfsThroughTheMemberItKeeps) {
  HostContext context("tester");
  ASSERT_GE(context.api.struct_size, sizeof(agentrt_host_api_t));
  ASSERT_NE(context.api.sqlite_vfs, nullptr) << "a 1.3 plugin may call the member";
  EXPECT_EQ(context.api.sqlite_vfs(context.api.host), nullptr);
  EXPECT_EQ(sdk::Host(&context.api).sqlite_vfs(), nullptr);
}

}  // namespace
}  // namespace agentrt::core
