// Routes: a method, a path template with {param} segments, a handler and the flags the
// pipeline acts on. A route's scope says where it is mounted: root routes (/health,
// /admin/...) as written in both modes; cell routes without a prefix in single mode and
// under /cells/{cellID} in multi mode.
//
// Matching is exact on '/'-separated segments, after percent-decoding each segment on
// its own (so %2F stays inside a parameter). An empty segment never matches, so a
// trailing slash or a doubled slash is 404. When several templates match a path, the
// most specific wins: a literal segment beats a parameter, compared left to right
// (DELETE /memory/layer before DELETE /memory/{id}); only that template's methods are
// considered, and a method it lacks is 405 listing them.
#pragma once

#include "core/config/config.h"
#include "server/http/request_context.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentrt::server {

class ApiError;
class Response;

using Handler = std::function<void(RequestContext&, Response&)>;

// The body of an error on the paths of a family of routes that answers in another API's
// shape (OpenAI's, under /v1: server/api/openai_routes.h) instead of agentrt's.
using ErrorBody = std::function<nlohmann::json(const ApiError&, std::string_view request_id)>;

enum class RouteScope { root, cell };

// Who may call a route; the auth middleware enforces it.
enum class RouteAccess { open, token, admin };

struct RouteSpec {
  std::string method;  // "GET", "POST", ...
  std::string path;    // template relative to the scope, e.g. "/memory/{id}"
  RouteScope scope = RouteScope::cell;
  RouteAccess access = RouteAccess::token;
  bool json_body = false;  // Content-Type must be application/json; body parsed to ctx.json
  Handler handler;
  // json_body routes whose handler reads ctx.body itself (parse_json_body gives the
  // pipeline's errors): ctx.json is left null.
  bool handler_reads_json = false;
  // The query parameters the route takes. The pipeline refuses any other, and any given
  // twice, so that a misspelt filter is an error instead of a list or a DELETE that
  // silently covers more than was asked.
  std::vector<std::string> query = {};

  RouteSpec&& taking(std::vector<std::string> names) && {
    query = std::move(names);
    return std::move(*this);
  }
};

struct Route {
  RouteSpec spec;
  std::string mounted_path;  // the full template, e.g. "/cells/{cellID}/memory/{id}"
};

struct RouteInfo {
  std::string method;
  std::string path;
  std::vector<std::string> query = {};  // RouteSpec::query; not compared
  bool operator<(const RouteInfo& other) const;
  bool operator==(const RouteInfo& other) const;
};

struct RouteMatch {
  enum class Outcome { found, not_found, method_not_allowed };
  Outcome outcome = Outcome::not_found;
  const Route* route = nullptr;
  PathParams params;
  std::string cell;                  // see RequestContext::cell
  std::vector<std::string> allowed;  // sorted methods, for 405
};

// What is wrong with `query` for a route taking `spec.query`: a parameter it does not
// take, or one given twice (which of the two a reader would take is a guess); nullopt
// when nothing is.
std::optional<std::string> query_problem(const RouteSpec& spec, const QueryParams& query);

// The path parameter that carries the cell in multi mode.
inline constexpr const char* kCellParam = "cellID";
// The cell every cell route addresses in single mode.
inline constexpr const char* kDefaultCell = "default";

class Router {
 public:
  explicit Router(core::CellMode mode);
  ~Router();
  Router(const Router&) = delete;
  Router& operator=(const Router&) = delete;

  // Throws std::invalid_argument for a malformed template or a (method, template) that
  // is already taken; routes are fixed at startup, so that is a programming error.
  void add(RouteSpec spec);

  // Throws ApiError(invalid_request) when the path has a malformed percent escape.
  RouteMatch match(std::string_view method, std::string_view raw_path) const;

  // Errors on the paths under `prefix` ("/v1", mounted as a route of `scope` is) get
  // their body from `body`, whatever refused them: the auth middleware, a path no route
  // has, or the handler.
  void add_error_body(const std::string& prefix, RouteScope scope, ErrorBody body);
  // The error body of the family `raw_path` is in, or nullptr: agentrt's own.
  const ErrorBody* error_body_for(std::string_view raw_path) const;

  // Every mounted route, sorted; what the OpenAPI document must list.
  std::vector<RouteInfo> routes() const;
  core::CellMode mode() const { return mode_; }

 private:
  struct Pattern;
  struct ErrorFamily {
    std::vector<std::string> prefix;  // mounted; "" stands for the cell's segment
    ErrorBody body;
  };
  core::CellMode mode_;
  std::vector<std::unique_ptr<Pattern>> patterns_;
  std::vector<ErrorFamily> error_families_;
};

}  // namespace agentrt::server
