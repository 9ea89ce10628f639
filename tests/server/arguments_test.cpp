#include "server/cli/arguments.h"

#include <gtest/gtest.h>

namespace agentrt::server::cli {
namespace {

TEST(Arguments, ServeIsTheDefault) {
  const Arguments args = parse_arguments({});
  EXPECT_EQ(args.verb, Verb::serve);
  EXPECT_FALSE(args.overrides.config_file);
  EXPECT_FALSE(args.json);
}

TEST(Arguments, ReadsEveryVerb) {
  EXPECT_EQ(parse_arguments({"serve"}).verb, Verb::serve);
  EXPECT_EQ(parse_arguments({"plugins"}).verb, Verb::plugins);
  EXPECT_EQ(parse_arguments({"check-config"}).verb, Verb::check_config);
  EXPECT_EQ(parse_arguments({"version"}).verb, Verb::version);
  EXPECT_EQ(parse_arguments({"help"}).verb, Verb::help);
}

TEST(Arguments, ReadsFlagsInBothFormsAndAnyOrder) {
  const Arguments args = parse_arguments(
      {"--config", "c.json", "--listen=127.0.0.1:0", "check-config", "--data-dir", "d",
       "--mode=multi", "--log-level", "debug", "--plugin-dir", "p1", "--plugin-dir=p2"});
  EXPECT_EQ(args.verb, Verb::check_config);
  EXPECT_EQ(args.overrides.config_file, "c.json");
  EXPECT_EQ(args.overrides.listen, "127.0.0.1:0");
  EXPECT_EQ(args.overrides.data_dir, "d");
  EXPECT_EQ(args.overrides.mode, "multi");
  EXPECT_EQ(args.overrides.log_level, "debug");
  EXPECT_EQ(args.overrides.plugin_dirs, (std::vector<std::string>{"p1", "p2"}));
}

TEST(Arguments, ValuesAreTakenVerbatim) {
  // Checking values is the config's job, so the same rules apply to file and flags.
  const Arguments args = parse_arguments({"--mode", "bogus", "--listen="});
  EXPECT_EQ(args.overrides.mode, "bogus");
  EXPECT_EQ(args.overrides.listen, "");
}

TEST(Arguments, HelpWinsOverTheVerb) {
  EXPECT_EQ(parse_arguments({"-h"}).verb, Verb::help);
  EXPECT_EQ(parse_arguments({"plugins", "--help"}).verb, Verb::help);
}

TEST(Arguments, JsonIsForPluginsOnly) {
  EXPECT_TRUE(parse_arguments({"plugins", "--json"}).json);
  EXPECT_THROW(parse_arguments({"--json"}), UsageError);
  EXPECT_THROW(parse_arguments({"version", "--json"}), UsageError);
  EXPECT_THROW(parse_arguments({"plugins", "--json=yes"}), UsageError);
}

TEST(Arguments, RefusesWhatItDoesNotKnow) {
  EXPECT_THROW(parse_arguments({"frobnicate"}), UsageError);
  EXPECT_THROW(parse_arguments({"--frobnicate"}), UsageError);
  EXPECT_THROW(parse_arguments({"-x"}), UsageError);
  EXPECT_THROW(parse_arguments({"serve", "plugins"}), UsageError);
  EXPECT_THROW(parse_arguments({"--listen"}), UsageError);
  EXPECT_THROW(parse_arguments({"serve", "--config"}), UsageError);
}

}  // namespace
}  // namespace agentrt::server::cli
