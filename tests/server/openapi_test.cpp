// docs/openapi.yaml documents exactly the routes the router serves: every (method,
// path) of the router in multi mode is in the document's paths, and nothing else is;
// and each operation's query parameters are exactly those its route takes.
#include "core/engine/engine.h"
#include "server/api/routes.h"
#include "server/http/router.h"
#include "tests/openapi/documented_routes.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>

namespace agentrt::server {
namespace {

using test::documented_routes;
using test::indent_of;
using test::RouteSet;
using test::upper;

using QueryNames = std::map<std::pair<std::string, std::string>, std::set<std::string>>;

// The `name` of a parameter whose `in` is query, from a flow mapping ("- {name: after,
// in: query, ...}") or from the block lines of a component; "" for any other.
struct ParamLines {
  std::string name;
  std::string in;
};

std::string flow_value(const std::string& line, const std::string& key) {
  std::smatch match;
  if (std::regex_search(line, match, std::regex("[{ ,]" + key + ": *([A-Za-z0-9_]+)")))
    return match[1];
  return "";
}

// Line-based as documented_routes: the components' parameters (`components:` >
// `parameters:` at two spaces > a name at four > `name:`/`in:` at six), then each
// operation's list items, a `$ref` to one of those or a flow mapping. A path's own
// `parameters:` (at four spaces) count for each of its operations.
QueryNames documented_query(const std::string& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::map<std::string, ParamLines> components;
  std::string top, section, component;
  for (const std::string& line : lines) {
    const std::size_t indent = indent_of(line);
    if (indent == std::string::npos) continue;
    const std::string key = line.substr(indent, line.find(':', indent) - indent);
    if (indent == 0) top = key;
    if (indent == 2) section = key;
    if (top != "components" || section != "parameters") continue;
    if (indent == 4) component = key;
    if (indent == 6 && key == "name") components[component].name = flow_value(" " + line, "name");
    if (indent == 6 && key == "in") components[component].in = flow_value(" " + line, "in");
  }
  QueryNames query;
  std::string path, method;
  std::set<std::string> path_level;
  static const std::regex ref("#/components/parameters/([A-Za-z0-9_]+)");
  for (const std::string& line : lines) {
    const std::size_t indent = indent_of(line);
    if (indent == std::string::npos || line[indent] == '#') continue;
    if (indent == 0) top = line.substr(0, line.find(':'));
    if (top != "paths") continue;
    const std::string key = line.substr(indent, line.find(':', indent) - indent);
    if (indent == 2) path = key, method.clear(), path_level.clear();
    if (indent == 4) method = key == "parameters" ? "" : upper(key);
    if (indent == 4 && !method.empty()) query[{method, path}] = path_level;
    if (line.compare(indent, 2, "- ") != 0) continue;
    std::smatch match;
    ParamLines param;
    if (std::regex_search(line, match, ref))
      param = components[match[1]];
    else
      param = {flow_value(line, "name"), flow_value(line, "in")};
    if (param.in != "query") continue;
    if (method.empty())
      path_level.insert(param.name);
    else
      query[{method, path}].insert(param.name);
  }
  return query;
}

// The router's routes in multi mode, as agentd mounts them.
std::vector<RouteInfo> served_routes() {
  core::Engine engine(core::Config{}, {});  // never started: handlers are not called
  Router router(core::CellMode::multi);
  api::register_api_routes(router, engine);
  return router.routes();
}

TEST(OpenApi, DocumentsExactlyTheQueryParametersEachRouteTakes) {
  const QueryNames documented = documented_query(AGENTRT_OPENAPI_PATH);
  int with_query = 0;
  for (const RouteInfo& route : served_routes()) {
    const std::set<std::string> takes(route.query.begin(), route.query.end());
    const auto it = documented.find({route.method, route.path});
    ASSERT_NE(it, documented.end()) << route.method << " " << route.path;
    EXPECT_EQ(it->second, takes) << route.method << " " << route.path;
    with_query += takes.empty() ? 0 : 1;
  }
  EXPECT_GE(with_query, 12);  // the lists, the memory filters and the events' `after`
}

TEST(OpenApi, QueryParserResolvesReferencesAndFlowMappings) {
  const std::string file = testing::TempDir() + "/openapi_query_test.yaml";
  std::ofstream(file) << "paths:\n"
                         "  /a/{id}:\n"
                         "    parameters:\n"
                         "      - {name: id, in: path, required: true}\n"
                         "      - {name: shared, in: query}\n"
                         "    get:\n"
                         "      parameters:\n"
                         "        - $ref: '#/components/parameters/Limit'\n"
                         "        - {name: after, in: query, schema: {type: integer}}\n"
                         "        - $ref: '#/components/parameters/Head'\n"
                         "    delete:\n      summary: x\n"
                         "components:\n  parameters:\n"
                         "    Limit:\n      name: limit\n      in: query\n"
                         "    Head:\n      name: X-Id\n      in: header\n";
  const QueryNames expected = {{{"GET", "/a/{id}"}, {"shared", "limit", "after"}},
                               {{"DELETE", "/a/{id}"}, {"shared"}}};
  EXPECT_EQ(documented_query(file), expected);
}

TEST(OpenApi, DocumentsExactlyTheRoutesOfTheRouter) {
  RouteSet served;
  for (const RouteInfo& route : served_routes()) served.insert({route.method, route.path});

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
