// The (method, path) pairs docs/openapi.yaml documents, read line by line: the router
// test keeps router and document in step with it, and the isolation matrix calls every
// route it finds.
#pragma once

#include <cctype>
#include <fstream>
#include <set>
#include <string>
#include <utility>

namespace agentrt::test {

using RouteSet = std::set<std::pair<std::string, std::string>>;

inline std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

inline std::size_t indent_of(const std::string& line) {
  return line.find_first_not_of(' ');
}

// Line-based on purpose: under `paths:`, a path key is at two spaces, an operation key at
// four; anything deeper is the operation's content. An unreadable file is an empty set.
inline RouteSet documented_routes(const std::string& file) {
  static const std::set<std::string> methods = {"get",   "put",     "post", "delete",
                                                "patch", "options", "head", "trace"};
  std::ifstream in(file);
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

}  // namespace agentrt::test
