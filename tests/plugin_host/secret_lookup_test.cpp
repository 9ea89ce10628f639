// The host's secret lookup, as plugins reach it through the callback table.
#include "core/plugin_host/host_api.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace agentrt::core {
namespace {

struct Received {
  std::string value;
  int calls = 0;
};

int32_t lookup(const std::string& ref, Received& received, agentrt_error_t& error) {
  HostContext context("tester");
  error = make_error_struct();
  return context.api.secret_lookup(
      context.api.host, ref.data(), ref.size(),
      [](void* user, const char* data, size_t len) {
        auto* r = static_cast<Received*>(user);
        r->value.assign(data, len);
        ++r->calls;
      },
      &received, &error);
}

TEST(SecretLookup, Inline) {
  Received r;
  agentrt_error_t e;
  ASSERT_EQ(lookup(R"({"source":"inline","value":"sk-inline"})", r, e), AGENTRT_OK);
  EXPECT_EQ(r.value, "sk-inline");
  EXPECT_EQ(r.calls, 1);
}

TEST(SecretLookup, EnvironmentVariable) {
  ::setenv("AGENTRT_TEST_SECRET", "sk-from-env", 1);
  Received r;
  agentrt_error_t e;
  ASSERT_EQ(lookup(R"({"source":"env","value":"AGENTRT_TEST_SECRET"})", r, e), AGENTRT_OK);
  EXPECT_EQ(r.value, "sk-from-env");
  EXPECT_EQ(lookup(R"({"source":"env","value":"AGENTRT_TEST_UNSET_X"})", r, e),
            AGENTRT_ERR_NOT_FOUND);
  // The variable's name is the server's: the log has it, the message points there.
  EXPECT_EQ(std::string(e.message).find("AGENTRT_TEST_UNSET_X"), std::string::npos);
  EXPECT_NE(std::string(e.message).find("agentd's log says why"), std::string::npos);
}

TEST(SecretLookup, FileWithoutTrailingNewline) {
  auto path = std::filesystem::temp_directory_path() / "agentrt-secret-test.key";
  std::ofstream(path) << "sk-from-file\n";
  Received r;
  agentrt_error_t e;
  ASSERT_EQ(lookup(R"({"source":"file","value":")" + path.string() + "\"}", r, e), AGENTRT_OK);
  EXPECT_EQ(r.value, "sk-from-file");
  std::filesystem::remove(path);
  EXPECT_EQ(lookup(R"({"source":"file","value":")" + path.string() + "\"}", r, e),
            AGENTRT_ERR_NOT_FOUND);
}

// Blanks at a key's ends were sent as part of it, and an empty key file sent no key at
// all.
TEST(SecretLookup, BlanksAroundAKeyAreNotPartOfItAndNoKeyIsAnError) {
  auto path = std::filesystem::temp_directory_path() / "agentrt-secret-blanks.key";
  std::ofstream(path) << "  sk-padded \r\n";
  Received r;
  agentrt_error_t e;
  const std::string ref = R"({"source":"file","value":")" + path.string() + "\"}";
  ASSERT_EQ(lookup(ref, r, e), AGENTRT_OK);
  EXPECT_EQ(r.value, "sk-padded");
  std::ofstream(path) << " \n";
  EXPECT_EQ(lookup(ref, r, e), AGENTRT_ERR_NOT_FOUND);
  ::setenv("AGENTRT_TEST_BLANK_SECRET", "\t", 1);
  EXPECT_EQ(lookup(R"({"source":"env","value":"AGENTRT_TEST_BLANK_SECRET"})", r, e),
            AGENTRT_ERR_NOT_FOUND);
  ::setenv("AGENTRT_TEST_BLANK_SECRET", " sk-env ", 1);
  ASSERT_EQ(lookup(R"({"source":"env","value":"AGENTRT_TEST_BLANK_SECRET"})", r, e), AGENTRT_OK);
  EXPECT_EQ(r.value, "sk-env");
  std::filesystem::remove(path);
}

// A key is one word: a file of several lines or NUL-separated values is the wrong
// file, refused at lookup (it failed later, in words that told its shape).
TEST(SecretLookup, AKeyWithABlankOrControlCharacterInsideIsNoKey) {
  auto path = std::filesystem::temp_directory_path() / "agentrt-secret-lines.key";
  const std::string ref = R"({"source":"file","value":")" + path.string() + "\"}";
  Received r;
  agentrt_error_t e;
  for (const std::string& content :
       {std::string("root:x:0:0\nbin:x:1:1\n"), std::string("A=1\0B=2\0", 8),
        std::string("sk-one sk-two"), std::string("sk-a\x7f")}) {
    std::ofstream(path, std::ios::binary) << content;
    EXPECT_EQ(lookup(ref, r, e), AGENTRT_ERR_NOT_FOUND) << content;
  }
  std::ofstream(path, std::ios::binary) << "sk-ok-\xc3\xa9\n";
  EXPECT_EQ(lookup(ref, r, e), AGENTRT_OK) << "bytes past ASCII are the upstream's to judge";
  std::filesystem::remove(path);
}

TEST(SecretLookup, BadReferencesAreInvalidAndNeverEchoTheValue) {
  Received r;
  agentrt_error_t e;
  EXPECT_EQ(lookup(R"({"source":"vault","value":"sk-do-not-echo"})", r, e),
            AGENTRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(e.message).find("sk-do-not-echo"), std::string::npos);
  // Source and value swapped, an operator's easy slip, puts the secret in `source`,
  // which the message used to quote to every client of the model.
  EXPECT_EQ(lookup(R"({"source":"sk-SWAPPED-secret","value":"inline"})", r, e),
            AGENTRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(e.message).find("sk-SWAPPED"), std::string::npos) << e.message;
  EXPECT_EQ(lookup("not json", r, e), AGENTRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(lookup(R"({"source":"inline"})", r, e), AGENTRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(r.calls, 0);
}

// The form a provider's configuration writes is read without nlohmann's parser
// (host_api.cpp); every other way of writing a reference must read as nlohmann reads
// it, and what it refuses stays refused.
TEST(SecretLookup, EveryWayOfWritingAReferenceReadsAsNlohmannReadsIt) {
  const std::vector<std::string> refs = {
      R"({"source":"inline","value":"sk-plain"})",
      R"({"source":"inline","value":""})",
      R"({"source":"inline","value":"sk-\"quoted\""})",
      R"({"source":"inline","value":"sk-\u0041"})",
      R"({"source":"in\u006cine","value":"sk-escaped-source"})",
      "{\"source\":\"inline\",\"value\":\"sk-caf\xc3\xa9\"}",
      R"({"value":"sk-reordered","source":"inline"})",
      R"({ "source" : "inline" , "value" : "sk-spaced" })",
      R"({"source":"inline","value":"sk-extra","note":"x"})",
      R"({"source":"inline","value":"sk-first","value":"sk-last"})",
  };
  for (const std::string& ref : refs) {
    Received r;
    agentrt_error_t e;
    ASSERT_EQ(lookup(ref, r, e), AGENTRT_OK) << ref;
    EXPECT_EQ(r.value, nlohmann::json::parse(ref)["value"]) << ref;
  }
  for (const std::string ref :
       {R"({"source":"inline","value":"sk"}x)", R"({"source":"inline","value":"sk")",
        R"({"source":"inline","value":"sk"}x"})",
        R"({"source":"inline","value":"s)"
        "\x01"
        R"("})",
        R"({"source":"inline","value":7})", R"({"source":"inline\","value":"sk"})"}) {
    Received r;
    agentrt_error_t e;
    EXPECT_EQ(lookup(ref, r, e), AGENTRT_ERR_INVALID_ARGUMENT) << ref;
    EXPECT_EQ(r.calls, 0) << ref;
  }
}

// A fenced context (an instance made from references the admin API wrote): a file only
// inside the secrets dir, where it really is, and a variable only with the prefix.
class FencedLookup : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "agentrt-fence-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root = pattern;
    std::filesystem::create_directory(root + "/secrets");
    std::ofstream(root + "/secrets/in.key") << "sk-inside\n";
    std::ofstream(root + "/out.key") << "sk-outside\n";
  }
  void TearDown() override { std::filesystem::remove_all(root); }
  int32_t fenced(const std::string& source, const std::string& value, Received& received) {
    HostContext context("tester", std::make_shared<const SecretFence>(
                                      SecretFence{root + "/secrets", "AGENTRT_SECRET_"}));
    agentrt_error_t error = make_error_struct();
    const std::string ref = nlohmann::json{{"source", source}, {"value", value}}.dump();
    return context.api.secret_lookup(
        context.api.host, ref.data(), ref.size(),
        [](void* user, const char* data, size_t len) {
          static_cast<Received*>(user)->value.assign(data, len);
        },
        &received, &error);
  }
  std::string root;
};

TEST_F(FencedLookup, AFileResolvesOnlyInsideTheSecretsDir) {
  Received r;
  ASSERT_EQ(fenced("file", "in.key", r), AGENTRT_OK);
  EXPECT_EQ(r.value, "sk-inside");
  ASSERT_EQ(fenced("file", root + "/secrets/in.key", r), AGENTRT_OK);
  for (const std::string& value : {root + "/out.key", std::string("../out.key"),
                                   root + "/secrets/../out.key", std::string("absent.key")}) {
    Received refused;
    EXPECT_EQ(fenced("file", value, refused), AGENTRT_ERR_NOT_FOUND) << value;
    EXPECT_TRUE(refused.value.empty()) << value;
  }
  std::filesystem::create_symlink(root + "/out.key", root + "/secrets/link.key");
  Received linked;
  EXPECT_EQ(fenced("file", "link.key", linked), AGENTRT_ERR_NOT_FOUND);
  EXPECT_TRUE(linked.value.empty());
  std::filesystem::create_symlink(root + "/secrets/in.key", root + "/secrets/alias.key");
  ASSERT_EQ(fenced("file", "alias.key", r), AGENTRT_OK) << "a link that stays inside is fine";
}

TEST_F(FencedLookup, AVariableResolvesOnlyWithThePrefix) {
  ::setenv("AGENTRT_SECRET_FENCE_TEST", "sk-prefixed", 1);
  ::setenv("FENCE_TEST_UNPREFIXED", "sk-unprefixed", 1);
  Received r;
  ASSERT_EQ(fenced("env", "AGENTRT_SECRET_FENCE_TEST", r), AGENTRT_OK);
  EXPECT_EQ(r.value, "sk-prefixed");
  Received refused;
  EXPECT_EQ(fenced("env", "FENCE_TEST_UNPREFIXED", refused), AGENTRT_ERR_NOT_FOUND);
  EXPECT_TRUE(refused.value.empty());
  ::unsetenv("AGENTRT_SECRET_FENCE_TEST");
  ::unsetenv("FENCE_TEST_UNPREFIXED");
}

TEST(HostOutput, RefusesGrowthPastItsLimit) {
  HostContext context("tester");
  agentrt_output_t out;
  out.max_bytes = 8;
  EXPECT_EQ(context.api.output_write(&out, "12345", 5), AGENTRT_OK);
  EXPECT_EQ(context.api.output_write(&out, "6789", 4), AGENTRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(out.data, "12345");
}

}  // namespace
}  // namespace agentrt::core
