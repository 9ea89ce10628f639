// Config and request validation: every refusal is INVALID_ARGUMENT naming the field.
#include "auth_token_fixture.h"

#include <gmock/gmock.h>

namespace agentrt::test {
namespace {

using ::testing::HasSubstr;

class AuthTokenValidation : public AuthTokenTest {
 protected:
  Failure create_failure(const json& config) {
    return failure([&] { core::PluginInstance(host.find("auth-token"), config.dump()); });
  }
  Failure issue_failure(const json& request) {
    return failure([&] { issue(request); });
  }
};

TEST_F(AuthTokenValidation, AnUnknownConfigKeyIsRefusedByName) {
  Failure f = create_failure({{"data_dir", data_dir}, {"pepper", "x"}});
  EXPECT_EQ(f.code, AGENTRT_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(f.message, HasSubstr("auth-token config: unknown key 'pepper'"));
}

TEST_F(AuthTokenValidation, DataDirIsRequiredAndMustBeAString) {
  for (const json& config : {json::object(), json{{"data_dir", 5}}, json{{"data_dir", ""}}}) {
    Failure f = create_failure(config);
    EXPECT_EQ(f.code, AGENTRT_ERR_INVALID_ARGUMENT) << config;
    EXPECT_THAT(f.message, HasSubstr("data_dir")) << config;
  }
  EXPECT_EQ(create_failure({{"data_dir", data_dir + "/missing/dir"}}).code, AGENTRT_ERR_INTERNAL);
}

TEST_F(AuthTokenValidation, TtlMustBeAPositiveIntegerUpToTenYearsOrNull) {
  json base = {{"actor", "a"}};
  for (const json& ttl : {json(0), json(-5), json(1.5), json("60"), json(true),
                          json(int64_t{3660} * 86400 + 1), json(UINT64_MAX)}) {
    json request = base;
    request["ttl_s"] = ttl;
    Failure f = issue_failure(request);
    EXPECT_EQ(f.code, AGENTRT_ERR_INVALID_ARGUMENT) << ttl;
    EXPECT_THAT(f.message, HasSubstr("ttl_s")) << ttl;
  }
  EXPECT_THAT(issue_failure(base).message, HasSubstr("ttl_s"));
  // The host's own maximum, 3660d: the two once differed by ten days, refused here
  // with a message about a field the client never sent.
  EXPECT_NO_THROW(issue({{"actor", "a"}, {"ttl_s", int64_t{3660} * 86400}}));
  EXPECT_THAT(issue_failure({{"actor", "a"}, {"ttl_s", int64_t{3660} * 86400 + 1}}).message,
              HasSubstr("at most"));
}

TEST_F(AuthTokenValidation, ActorMustBeANonEmptyString) {
  for (const json& actor : {json(), json(""), json(5), json::array()}) {
    json request = {{"ttl_s", 60}};
    if (!actor.is_null()) request["actor"] = actor;
    Failure f = issue_failure(request);
    EXPECT_EQ(f.code, AGENTRT_ERR_INVALID_ARGUMENT) << actor;
    EXPECT_THAT(f.message, HasSubstr("actor")) << actor;
  }
}

TEST_F(AuthTokenValidation, CellMustBeAStringOrNull) {
  for (const json& cell : {json(""), json(5), json::object()}) {
    Failure f = issue_failure({{"ttl_s", 60}, {"actor", "a"}, {"cell", cell}});
    EXPECT_EQ(f.code, AGENTRT_ERR_INVALID_ARGUMENT) << cell;
    EXPECT_THAT(f.message, HasSubstr("cell")) << cell;
  }
}

TEST_F(AuthTokenValidation, AdminMustBeABoolean) {
  for (const json& admin : {json("true"), json(1), json(nullptr)}) {
    Failure f = issue_failure({{"ttl_s", 60}, {"actor", "a"}, {"admin", admin}});
    EXPECT_EQ(f.code, AGENTRT_ERR_INVALID_ARGUMENT) << admin;
    EXPECT_THAT(f.message, HasSubstr("admin")) << admin;
  }
}

TEST_F(AuthTokenValidation, RequestsMustBeJsonObjects) {
  for (agentrt_json_call_fn fn : {table().verify, table().issue, table().list, table().revoke})
    for (const char* request : {"[]", "nope", "\"art_\"", "{\"token\":"})
      EXPECT_EQ(raw_failure(fn, request).code, AGENTRT_ERR_INVALID_ARGUMENT) << request;
}

}  // namespace
}  // namespace agentrt::test
