// Everything the pipeline learned about one request, handed to middleware and handlers.
// Later issues add what they establish here (the auth middleware: the calling principal).
#pragma once

#include "core/auth/principal.h"
#include "server/http/uri.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace agentrt::server {

struct Route;
struct RequestHead;

using PathParams = std::map<std::string, std::string>;

struct RequestContext {
  std::string request_id;
  std::string method;
  std::string path;   // raw, without the query string; what the access log shows
  QueryParams query;  // decoded
  const Route* route = nullptr;
  PathParams params;  // decoded {name} segments of the matched template
  // Cell routes: "default" in single mode, the {cellID} segment in multi mode. Empty for
  // root routes. Whether the cell exists is for a middleware of the cells work to decide.
  std::string cell;
  std::string body;     // the whole request body (the pipeline always reads it)
  nlohmann::json json;  // the parsed body, for routes declared with json_body
  // What the head reader found of the fields every request is asked for; null when the
  // context was made without a request.
  const RequestHead* head = nullptr;
  // True once the client has closed its side of the connection; cheap, for streams to
  // notice a departed client while they have nothing to write.
  std::function<bool()> client_closed;
  // The connection's socket, for a stream written from another thread (sse_stream.h);
  // -1 when there is none to hand.
  int client_socket = -1;
  // Who is calling, set by the auth middleware on every route that is not open.
  std::optional<core::Principal> principal;

  // The first Authorization and Content-Type fields, "" when absent (from `head`).
  std::string_view authorization() const;
  std::string_view content_type() const;
  // The first Last-Event-ID field, none when absent.
  std::optional<std::string> last_event_id() const;
  // The value of a template parameter; throws std::logic_error when the route has none
  // of that name, which is a programming error, not a client error.
  const std::string& param(const std::string& name) const;
  // The value of a query parameter; throws std::logic_error when the route does not
  // take one of that name (RouteSpec::query), a programming error like param()'s.
  std::optional<std::string> query_param(const std::string& name) const;
};

}  // namespace agentrt::server
