// Which plugin files the host opens: only those an enabled name maps to, and only from
// places nobody but root or agentd's user can write. The marker library's constructor
// writes a file when it is opened, so its absence proves it never ran.
#include "core/plugin_host/plugin_files.h"
#include "core/plugin_host/plugin_host.h"
#include "tests/plugin_host/test_paths.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace agentrt::core {
namespace {

namespace fs = std::filesystem;

class PluginFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "agentrt-plugin-files-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root = pattern;
    plugins = root / "plugins";
    fs::create_directory(plugins);
    fs::permissions(plugins, fs::perms(0755));
    marker = (root / "marker").string();
    ::setenv("AGENTRT_TEST_PLUGIN_MARKER", marker.c_str(), 1);
    fs::copy_file(AGENTRT_TEST_MARKER_PLUGIN, plugins / "marker-plugin.so");
    fs::copy_file(test::fixture("fixture-v1_0"), plugins / "fixture-v1_0.so");
  }
  void TearDown() override {
    ::unsetenv("AGENTRT_TEST_PLUGIN_MARKER");
    fs::remove_all(root);
  }
  bool marked() const { return fs::exists(marker); }
  const PluginStatus* status_of(const PluginHost& host, const std::string& file) const {
    for (const PluginStatus& status : host.statuses())
      if (status.path == (plugins / file).string()) return &status;
    return nullptr;
  }

  fs::path root, plugins;
  std::string marker;
};

TEST_F(PluginFiles, AFileNoEnabledNameMapsToIsNeverOpened) {
  PluginHost host;
  host.scan({plugins.string()}, PluginSelection{{"fixture-v1_0"}, {}});
  EXPECT_FALSE(marked()) << "the dropped library was opened: its constructor ran";
  const PluginStatus* dropped = status_of(host, "marker-plugin.so");
  ASSERT_NE(dropped, nullptr);
  EXPECT_FALSE(dropped->opened);
  EXPECT_FALSE(dropped->loaded);
  EXPECT_NE(dropped->error.find("no enabled plugin is named 'marker-plugin'; to load it, name it "
                                "in the config's plugins (\"marker-plugin\": {})"),
            std::string::npos)
      << dropped->error;
  EXPECT_TRUE(host.find("fixture-v1_0"));
  EXPECT_EQ(host.plugins().size(), 1u);
}

// The control: enabled, the same file is opened and leaves its mark (then is refused,
// being no plugin). Without it the test above would pass for a marker that never marks.
TEST_F(PluginFiles, AnEnabledFileIsOpened) {
  PluginHost host;
  host.scan({plugins.string()}, PluginSelection{{"marker-plugin"}, {}});
  EXPECT_TRUE(marked());
  const PluginStatus* opened = status_of(host, "marker-plugin.so");
  ASSERT_NE(opened, nullptr);
  EXPECT_TRUE(opened->opened);
  EXPECT_NE(opened->error.find("exports no agentrt_plugin_query"), std::string::npos);
}

TEST_F(PluginFiles, ADisabledPluginIsListedUnderItsNameAndNotOpened) {
  PluginHost host;
  host.scan({plugins.string()}, PluginSelection{{}, {"marker-plugin"}});
  EXPECT_FALSE(marked());
  EXPECT_TRUE(host.discovered("marker-plugin"));
  EXPECT_NE(status_of(host, "marker-plugin.so")->error.find("plugins.marker-plugin.enabled"),
            std::string::npos);
}

TEST_F(PluginFiles, ADirectoryOthersMayWriteIsRefusedWhole) {
  fs::permissions(plugins, fs::perms(0777));
  PluginHost host;
  host.scan({plugins.string()}, PluginSelection{{"marker-plugin", "fixture-v1_0"}, {}});
  EXPECT_FALSE(marked());
  EXPECT_TRUE(host.plugins().empty());
  ASSERT_EQ(host.statuses().size(), 1u);
  EXPECT_EQ(host.statuses()[0].path, plugins.string());
  EXPECT_NE(host.statuses()[0].error.find("is writable by others (mode 0777)"), std::string::npos)
      << host.statuses()[0].error;
  fs::permissions(plugins, fs::perms(0775));
  EXPECT_NE(plugin_dir_refusal(plugins.string())->find("writable by its group"), std::string::npos);
}

TEST_F(PluginFiles, AFileOthersMayWriteIsRefusedBeforeItIsOpened) {
  fs::permissions(plugins / "marker-plugin.so", fs::perms(0757));
  PluginHost host;
  PluginStatus status = host.load((plugins / "marker-plugin.so").string());
  EXPECT_FALSE(marked());
  EXPECT_FALSE(status.opened);
  EXPECT_NE(status.error.find("is writable by others"), std::string::npos) << status.error;
  fs::permissions(plugins / "fixture-v1_0.so", fs::perms(0775));
  EXPECT_NE(host.load((plugins / "fixture-v1_0.so").string()).error.find("writable by its group"),
            std::string::npos);
}

// A library owned by another user: that user could change it under agentd.
TEST_F(PluginFiles, AFileOrDirectoryOfAnotherOwnerIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another user";
  ASSERT_EQ(::chown((plugins / "marker-plugin.so").c_str(), 4242, 4242), 0);
  PluginHost host;
  EXPECT_NE(host.load((plugins / "marker-plugin.so").string()).error.find("owned by uid 4242"),
            std::string::npos);
  ASSERT_EQ(::chown(plugins.c_str(), 4242, 4242), 0);
  EXPECT_NE(plugin_dir_refusal(plugins.string())->find("owned by uid 4242"), std::string::npos);
  EXPECT_FALSE(marked());
}

// A directory above the plugin dir that others may write lets them swap the plugin dir.
TEST_F(PluginFiles, AWritableDirectoryAboveIsRefusedUnlessSticky) {
  fs::permissions(root, fs::perms(0777));
  EXPECT_NE(plugin_dir_refusal(plugins.string())->find("above plugin directory"),
            std::string::npos);
  fs::permissions(root, fs::perms(01777));
  EXPECT_FALSE(plugin_dir_refusal(plugins.string()));
}

TEST_F(PluginFiles, AFileMustHoldThePluginItIsNamedFor) {
  fs::copy_file(plugins / "fixture-v1_0.so", plugins / "agentrt-other.so");
  PluginHost host;
  host.scan({plugins.string()}, PluginSelection{{"other"}, {}});
  const PluginStatus* status = status_of(host, "agentrt-other.so");
  ASSERT_NE(status, nullptr);
  EXPECT_NE(status->error.find("named for plugin 'other' but holds plugin 'fixture-v1_0'"),
            std::string::npos)
      << status->error;
  EXPECT_TRUE(host.plugins().empty());
}

TEST(PluginFileNames, BundledAndPlainNamesMapToTheirPlugin) {
  EXPECT_EQ(plugin_named_by_file("/x/agentrt-echo.so", {"echo"}), "echo");
  EXPECT_EQ(plugin_named_by_file("/x/echo.so", {"echo"}), "echo");
  EXPECT_EQ(plugin_named_by_file("/x/agentrt-echo.so", {"agentrt-echo"}), "agentrt-echo");
  EXPECT_EQ(plugin_named_by_file("/x/echo2.so", {"echo"}), "");
  EXPECT_EQ(plugin_named_by_file("/x/echo.so.1", {"echo"}), "");
  EXPECT_EQ(plugin_name_of_file("/x/agentrt-mcp.so"), "mcp");
}

}  // namespace
}  // namespace agentrt::core
