// The store's connections open through the SQLite VFS the host offers (ABI 1.3
// sqlite_vfs): agentd's shim, which writes a commit's WAL frames with one write instead
// of two per page. Under a host without it they open with SQLite's default, and either
// reads what the other wrote.
#include "memory_fixture.h"

#include "core/plugin_host/host_api.h"
#include "core/store/wal_buffer_vfs.h"

#include <cstddef>

namespace agentrt::test {
namespace {

constexpr uint64_t kSaves = 40;

core::WalWriteCounts since(const core::WalWriteCounts& before) {
  core::WalWriteCounts now = core::wal_write_counts();
  return {now.requested - before.requested, now.written - before.written};
}

json save_request(uint64_t i) {
  return {{"cell", "c1"},
          {"layer", "about_me"},
          {"content", "entry " + std::to_string(i)},
          {"namespace", nullptr},
          {"actor", "alice"},
          {"session_id", nullptr},
          {"metadata", json::object()}};
}

TEST_F(MemoryTest, SavesWriteTheirLogThroughTheHostsVfsOnceACommit) {
  core::WalWriteCounts before = core::wal_write_counts();
  for (uint64_t i = 0; i < kSaves; ++i) call(table().save, save_request(i));
  core::WalWriteCounts saves = since(before);
  // A save commits the entry, its tallies and its FTS rows: several frames, each of
  // which SQLite writes as a header and a page.
  EXPECT_GE(saves.requested, 4 * kSaves) << "the saves did not go through the host's VFS";
  EXPECT_LE(saves.written, 2 * kSaves);
  EXPECT_EQ(count(filter("c1"))["about_me"], kSaves);
}

// An ABI 1.2 host's table ends before sqlite_vfs.
TEST_F(MemoryTest, UnderAHostWithoutAnOfferedVfsTheStoreKeepsSqlitesDefault) {
  memory.reset();
  core::HostContext old_host("memory-sqlite");
  old_host.api.struct_size = offsetof(agentrt_host_api_t, sqlite_vfs);
  const agentrt_memory_vtable_t& vtable = host.find("memory-sqlite")->memory_table();
  std::string config = json{{"data_dir", data_dir}}.dump();
  void* instance = nullptr;
  agentrt_error_t error = core::make_error_struct();
  ASSERT_EQ(vtable.create(&old_host.api, config.data(), config.size(), &instance, &error),
            AGENTRT_OK)
      << error.message;
  core::WalWriteCounts before = core::wal_write_counts();
  for (uint64_t i = 0; i < kSaves; ++i) {
    std::string request = save_request(i).dump();
    agentrt_output_t out;
    ASSERT_EQ(vtable.save(instance, request.data(), request.size(), &out, &error), AGENTRT_OK)
        << error.message;
  }
  EXPECT_EQ(since(before).requested, 0u) << "a 1.2 host's plugin used the shim";
  vtable.destroy(instance);
  open();  // the shim reads what the default VFS wrote, and goes on from there
  EXPECT_EQ(count(filter("c1"))["about_me"], kSaves);
  call(table().save, save_request(kSaves));
  EXPECT_EQ(count(filter("c1"))["about_me"], kSaves + 1);
  EXPECT_EQ(ids_of(search(filter("c1"), "entry", nullptr, 100)["data"]).size(), kSaves + 1);
}

}  // namespace
}  // namespace agentrt::test
