#include "server/http/router.h"

#include "server/http/api_error.h"
#include "server/http/response.h"

#include <gtest/gtest.h>

namespace agentrt::server {
namespace {

using Outcome = RouteMatch::Outcome;

Handler noop() {
  return [](RequestContext&, Response&) {};
}

RouteSpec spec(std::string method, std::string path, RouteScope scope = RouteScope::cell) {
  return RouteSpec{std::move(method), std::move(path), scope, RouteAccess::token, false, noop()};
}

std::unique_ptr<Router> make_router(core::CellMode mode) {
  auto router = std::make_unique<Router>(mode);
  router->add(spec("GET", "/health", RouteScope::root));
  router->add(spec("GET", "/admin/cells/{id}", RouteScope::root));
  router->add(spec("PATCH", "/admin/cells/{id}", RouteScope::root));
  router->add(spec("GET", "/things/{id}"));
  router->add(spec("DELETE", "/things/{id}"));
  router->add(spec("GET", "/memory/{id}"));
  router->add(spec("DELETE", "/memory/{id}"));
  router->add(spec("DELETE", "/memory/layer"));
  router->add(spec("POST", "/memory/search"));
  return router;
}

TEST(Router, RootRoutesMatchInBothModesWithoutACell) {
  for (auto mode : {core::CellMode::single, core::CellMode::multi}) {
    auto router = make_router(mode);
    RouteMatch match = router->match("GET", "/health");
    ASSERT_EQ(match.outcome, Outcome::found);
    EXPECT_EQ(match.route->mounted_path, "/health");
    EXPECT_TRUE(match.cell.empty());
    match = router->match("PATCH", "/admin/cells/c1");
    ASSERT_EQ(match.outcome, Outcome::found);
    EXPECT_EQ(match.params.at("id"), "c1");
  }
}

TEST(Router, SingleModeMountsCellRoutesWithoutPrefix) {
  auto router = make_router(core::CellMode::single);
  RouteMatch match = router->match("GET", "/things/t1");
  ASSERT_EQ(match.outcome, Outcome::found);
  EXPECT_EQ(match.params.at("id"), "t1");
  EXPECT_EQ(match.cell, "default");
  EXPECT_EQ(router->match("GET", "/cells/default/things/t1").outcome, Outcome::not_found);
}

TEST(Router, MultiModeMountsCellRoutesUnderCells) {
  auto router = make_router(core::CellMode::multi);
  RouteMatch match = router->match("GET", "/cells/acme/things/t1");
  ASSERT_EQ(match.outcome, Outcome::found);
  EXPECT_EQ(match.route->mounted_path, "/cells/{cellID}/things/{id}");
  EXPECT_EQ(match.params.at("id"), "t1");
  EXPECT_EQ(match.params.at("cellID"), "acme");
  EXPECT_EQ(match.cell, "acme");
  EXPECT_EQ(router->match("GET", "/things/t1").outcome, Outcome::not_found);
  EXPECT_EQ(router->match("GET", "/cells/acme/health").outcome, Outcome::not_found);
}

TEST(Router, ParamsArePercentDecodedPerSegment) {
  auto router = make_router(core::CellMode::multi);
  RouteMatch match = router->match("GET", "/cells/a%20b/things/x%2Fy%25z+1");
  ASSERT_EQ(match.outcome, Outcome::found);
  EXPECT_EQ(match.cell, "a b");
  EXPECT_EQ(match.params.at("id"), "x/y%z+1");  // '+' is not a space in a path
  // Literal segments are compared decoded as well.
  EXPECT_EQ(router->match("GET", "/h%65alth").outcome, Outcome::found);
}

TEST(Router, MalformedEscapeIsInvalidRequest) {
  auto router = make_router(core::CellMode::single);
  for (const char* path : {"/things/%", "/things/%4", "/things/%zz"}) {
    try {
      router->match("GET", path);
      ADD_FAILURE() << path << " did not throw";
    } catch (const ApiError& e) {
      EXPECT_EQ(e.kind(), ErrorCode::invalid_request) << path;
    }
  }
}

// A NUL in a cell's id once cut its 404's message short ("cell 'x"): no id holds a
// control character, so a path with one is refused before any lookup.
TEST(Router, AControlCharacterInThePathIsInvalidRequest) {
  auto router = make_router(core::CellMode::multi);
  for (const char* path : {"/cells/x%00y/things/t1", "/cells/acme/things/a%0Ab",
                           "/cells/a%1F/things/t", "/cells/acme/things/%7F"}) {
    try {
      router->match("GET", path);
      ADD_FAILURE() << path << " did not throw";
    } catch (const ApiError& e) {
      EXPECT_EQ(e.kind(), ErrorCode::invalid_request) << path;
      EXPECT_STREQ(e.what(), "the path holds a control character");
    }
  }
  EXPECT_EQ(router->match("GET", "/cells/acme/things/%C3%A9%20~").outcome, Outcome::found);
}

TEST(Router, WrongMethodIsMethodNotAllowedWithSortedAllow) {
  auto router = make_router(core::CellMode::single);
  RouteMatch match = router->match("POST", "/things/t1");
  EXPECT_EQ(match.outcome, Outcome::method_not_allowed);
  EXPECT_EQ(match.route, nullptr);
  EXPECT_EQ(match.allowed, (std::vector<std::string>{"DELETE", "GET"}));
  EXPECT_EQ(router->match("HEAD", "/health").allowed, std::vector<std::string>{"GET"});
}

TEST(Router, TrailingAndEmptySegmentsDoNotMatch) {
  auto router = make_router(core::CellMode::single);
  for (const char* path : {"/health/", "//health", "/things/", "/things//", "/", "", "health",
                           "/things/t1/", "/things/t1/extra"}) {
    EXPECT_EQ(router->match("GET", path).outcome, Outcome::not_found) << path;
  }
}

TEST(Router, LiteralSegmentBeatsParameter) {
  auto router = make_router(core::CellMode::single);
  RouteMatch layer = router->match("DELETE", "/memory/layer");
  ASSERT_EQ(layer.outcome, Outcome::found);
  EXPECT_EQ(layer.route->mounted_path, "/memory/layer");
  EXPECT_TRUE(layer.params.empty());

  RouteMatch entry = router->match("DELETE", "/memory/m1");
  ASSERT_EQ(entry.outcome, Outcome::found);
  EXPECT_EQ(entry.route->mounted_path, "/memory/{id}");

  // The literal template decides alone: GET exists only on {id}.
  RouteMatch get_search = router->match("GET", "/memory/search");
  EXPECT_EQ(get_search.outcome, Outcome::method_not_allowed);
  EXPECT_EQ(get_search.allowed, std::vector<std::string>{"POST"});
}

TEST(Router, RejectsMalformedTemplates) {
  Router router(core::CellMode::multi);
  for (const char* path :
       {"", "/", "x", "/a/", "/a//b", "/{}", "/{a}/{a}", "/a{b}", "/{a-b}", "/{1a}", "/a%20"}) {
    EXPECT_THROW(router.add(spec("GET", path)), std::invalid_argument) << path;
  }
  EXPECT_THROW(router.add(spec("GET", "/x/{cellID}")), std::invalid_argument);
  RouteSpec no_handler = spec("GET", "/nohandler");
  no_handler.handler = nullptr;
  EXPECT_THROW(router.add(no_handler), std::invalid_argument);
  EXPECT_THROW(router.add(spec("", "/nomethod")), std::invalid_argument);
}

TEST(Router, RejectsDuplicatesAndConflictingParameterNames) {
  Router router(core::CellMode::single);
  router.add(spec("GET", "/a/{id}"));
  EXPECT_THROW(router.add(spec("GET", "/a/{id}")), std::invalid_argument);
  EXPECT_THROW(router.add(spec("DELETE", "/a/{other}")), std::invalid_argument);
  EXPECT_NO_THROW(router.add(spec("DELETE", "/a/{id}")));
  // Same path as a root route in single mode: the method decides.
  EXPECT_THROW(router.add(spec("GET", "/a/{id}", RouteScope::root)), std::invalid_argument);
}

// A family's error body covers every path under its prefix, mounted as its routes are,
// routes or not; other paths keep agentrt's body.
TEST(Router, ErrorBodiesGoByThePathsFamily) {
  const ErrorBody body = [](const ApiError&, std::string_view) { return nlohmann::json("v1"); };
  Router single(core::CellMode::single);
  single.add_error_body("/v1", RouteScope::cell, body);
  for (const char* path : {"/v1", "/v1/models", "/v1/chat/completions", "/v1/nope/deeper"})
    EXPECT_NE(single.error_body_for(path), nullptr) << path;
  for (const char* path : {"/", "/v2/models", "/v1x", "/health", "/cells/a/v1/models", ""})
    EXPECT_EQ(single.error_body_for(path), nullptr) << path;
  Router multi(core::CellMode::multi);
  multi.add_error_body("/v1", RouteScope::cell, body);
  for (const char* path : {"/cells/acme/v1", "/cells/acme/v1/models", "/cells/x/v1/nope"})
    EXPECT_NE(multi.error_body_for(path), nullptr) << path;
  for (const char* path : {"/v1/models", "/cells//v1/models", "/cells/acme/models", "/cells"})
    EXPECT_EQ(multi.error_body_for(path), nullptr) << path;
  EXPECT_THROW(multi.add_error_body("/v1/{x}", RouteScope::cell, body), std::invalid_argument);
}

TEST(Router, ListsMountedRoutesSorted) {
  auto router = make_router(core::CellMode::multi);
  const std::vector<RouteInfo> expected = {
      {"GET", "/admin/cells/{id}"},
      {"PATCH", "/admin/cells/{id}"},
      {"DELETE", "/cells/{cellID}/memory/layer"},
      {"POST", "/cells/{cellID}/memory/search"},
      {"DELETE", "/cells/{cellID}/memory/{id}"},
      {"GET", "/cells/{cellID}/memory/{id}"},
      {"DELETE", "/cells/{cellID}/things/{id}"},
      {"GET", "/cells/{cellID}/things/{id}"},
      {"GET", "/health"},
  };
  EXPECT_EQ(router->routes(), expected);
  EXPECT_EQ(make_router(core::CellMode::single)->routes().front(),
            (RouteInfo{"GET", "/admin/cells/{id}"}));
}

}  // namespace
}  // namespace agentrt::server
