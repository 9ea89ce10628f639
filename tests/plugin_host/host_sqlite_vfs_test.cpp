// The SQLite VFS the host offers plugins (ABI 1.3 sqlite_vfs): the state store's WAL
// write shim, registered in the process's SQLite, where a plugin's sqlite3_vfs_find
// finds it.
#include "core/plugin_host/host_api.h"
#include "core/store/wal_buffer_vfs.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

namespace agentrt::core {
namespace {

TEST(HostSqliteVfs, TheHostOffersTheStoresWalShimRegisteredInSqlite) {
  HostContext context("tester");
  ASSERT_GE(context.api.struct_size, sizeof(agentrt_host_api_t));
  ASSERT_NE(context.api.sqlite_vfs, nullptr);
  const char* name = context.api.sqlite_vfs(context.api.host);
  ASSERT_NE(name, nullptr);
  EXPECT_STREQ(name, wal_buffer_vfs());
  sqlite3_vfs* vfs = sqlite3_vfs_find(name);
  ASSERT_NE(vfs, nullptr);
  EXPECT_NE(vfs, sqlite3_vfs_find(nullptr)) << "the shim must not replace SQLite's default";
}

}  // namespace
}  // namespace agentrt::core
