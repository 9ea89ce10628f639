// docs/openapi.yaml documents exactly the routes the router serves: every (method,
// path) of the router in multi mode is in the document's paths, and nothing else is.
#include "core/engine/engine.h"
#include "server/api/routes.h"
#include "server/http/router.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

namespace agentrt::server {
namespace {

using RouteSet = std::set<std::pair<std::string, std::string>>;

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::size_t indent_of(const std::string& line) {
  return line.find_first_not_of(' ');
}

// Line-based on purpose: under `paths:`, a path key is at two spaces, an operation key at
// four; anything deeper is the operation's content.
RouteSet documented_routes(const std::string& file) {
  static const std::set<std::string> methods = {"get",   "put",     "post", "delete",
                                                "patch", "options", "head", "trace"};
  std::ifstream in(file);
  EXPECT_TRUE(in.good()) << "cannot read " << file;
  RouteSet routes;
  bool in_paths = false;
  std::string path;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || indent_of(line) == std::string::npos || line[indent_of(line)] == '#')
      continue;
    if (indent_of(line) == 0) {
      in_paths = line.rfind("paths:", 0) == 0;
      continue;
    }
    if (!in_paths) continue;
    const std::size_t colon = line.find(':');
    const std::string key = line.substr(indent_of(line), colon - indent_of(line));
    if (indent_of(line) == 2) {
      path = key;
    } else if (indent_of(line) == 4 && methods.count(key) != 0) {
      routes.insert({upper(key), path});
    }
  }
  return routes;
}

TEST(OpenApi, DocumentsExactlyTheRoutesOfTheRouter) {
  core::Engine engine(core::Config{}, {});  // never started: handlers are not called
  Router router(core::CellMode::multi);
  api::register_api_routes(router, engine);
  RouteSet served;
  for (const RouteInfo& route : router.routes()) served.insert({route.method, route.path});

  const RouteSet documented = documented_routes(AGENTRT_OPENAPI_PATH);
  EXPECT_FALSE(documented.empty());
  for (const auto& route : served) {
    EXPECT_TRUE(documented.count(route)) << "undocumented: " << route.first << " " << route.second;
  }
  for (const auto& route : documented) {
    EXPECT_TRUE(served.count(route))
        << "documented, not served: " << route.first << " " << route.second;
  }
}

TEST(OpenApi, ParserReadsPathsAndMethodsOnly) {
  const std::string file = testing::TempDir() + "/openapi_parser_test.yaml";
  std::ofstream(file) << "openapi: 3.0.3\n"
                         "info:\n  title: x\n  get: not-a-route\n"
                         "paths:\n"
                         "  /a/{id}:\n"
                         "    parameters: []\n"
                         "    get:\n      responses: {}\n"
                         "    delete:\n      summary: x\n"
                         "  # a comment\n"
                         "  /b:\n    post:\n      requestBody:\n        get: nested\n"
                         "components:\n  x:\n    get: no\n";
  const RouteSet expected = {{"GET", "/a/{id}"}, {"DELETE", "/a/{id}"}, {"POST", "/b"}};
  EXPECT_EQ(documented_routes(file), expected);
}

}  // namespace
}  // namespace agentrt::server
