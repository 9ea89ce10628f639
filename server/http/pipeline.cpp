#include "server/http/pipeline.h"

#include "core/domain/json_body.h"
#include "core/domain/json_text.h"
#include "core/log/logger.h"
#include "core/log/request_log.h"
#include "core/metrics/request_timing.h"
#include "core/store/sqlite.h"
#include "server/http/api_error.h"
#include "server/http/api_request.h"
#include "server/http/body_reader.h"
#include "server/http/media_type.h"
#include "server/http/request_id.h"
#include "server/http/response.h"
#include "server/http/token_shapes.h"
#include "server/http/uri.h"
#include "text/utf8.h"

#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Timespan.h>
#include <sys/socket.h>

#include <cerrno>

#include <chrono>
#include <stdexcept>

namespace agentrt::server {

namespace {

// How long a response that closes early may keep reading what its client still sends.
constexpr int kLingerBudgetMs = 2000;

class ActiveRequest {
 public:
  explicit ActiveRequest(std::atomic<int>& counter) : counter_(counter) { ++counter_; }
  ~ActiveRequest() { --counter_; }
  ActiveRequest(const ActiveRequest&) = delete;
  ActiveRequest& operator=(const ActiveRequest&) = delete;

 private:
  std::atomic<int>& counter_;
};

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

void require_json_content_type(const RequestContext& ctx) {
  if (!is_json_media_type(ctx.content_type()))
    throw ApiError(ErrorCode::unsupported_media_type, "Content-Type must be application/json");
  // RFC 9110 15.5.16: a body in a coding the server does not take is 415, not JSON
  // that fails to parse.
  if (ctx.head != nullptr && ctx.head->content_coding != nullptr) {
    constexpr size_t kShownBytes = 32;
    throw ApiError(ErrorCode::unsupported_media_type,
                   "Content-Encoding " +
                       core::json_excerpt(*ctx.head->content_coding, kShownBytes) +
                       " is not supported: send the body as it is (identity)");
  }
}

// A token pasted where an id belongs would put its whole value in the access log.
std::string_view path_for_log(std::string_view path, std::string& scrubbed) {
  return redact_token_shapes(path, scrubbed);
}

// The request's own fields first, in the order docs/operator-guide.md gives, then
// `added`: what the code that served it added to its line (core/log/request_log.h),
// such as its run.
void log_access(const RequestContext& ctx, int status,
                std::chrono::steady_clock::time_point started, const core::LogFields& added) {
  if (!core::Logger::enabled(core::LogLevel::info)) return;
  const auto elapsed = std::chrono::steady_clock::now() - started;
  core::LogFields line;
  std::string scrubbed;
  line.text("request_id", ctx.request_id)
      .text("method", ctx.method)
      .text("path", path_for_log(ctx.path, scrubbed))
      .integer("status", status)
      .millis("duration_ms", std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count())
      .append(added);
  core::log_info("request", line);
}

// A request that arrives on an open connection once a shutdown has begun: the grace
// period is for the requests under way, and a new run would be cut at its end.
ApiError shutting_down() {
  return ApiError(ErrorCode::provider_unavailable, "shutting_down",
                  "agentd is shutting down; send the request again on a new connection")
      .with_header("Retry-After", "1");
}

// A peek that reads 0 bytes means the peer sent FIN; an error other than "nothing yet"
// means the socket failed. One syscall: Poco's Socket::poll makes and closes an epoll
// instance per call, which with two thousand open streams was a sixth of the CPU.
bool peer_closed(int fd) {
  if (fd < 0) return false;
  char byte = 0;
  ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n > 0) return false;  // bytes waiting (a pipelined request): still there
  if (n == 0) return true;
  return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

}  // namespace

class RequestPipeline::Run {
 public:
  Run(const RequestPipeline& pipeline, ApiRequest& request, Poco::Net::HTTPServerResponse& raw)
      : pipeline_(pipeline),
        request_(request),
        started_(std::chrono::steady_clock::now()),
        response_(raw, choose_request_id(field_text(request.head().request_id)),
                  &pipeline.draining_) {
    ctx_.request_id = response_.request_id();
    ctx_.method = request.getMethod();
    const std::string& uri = request.getURI();
    ctx_.path = uri.substr(0, uri.find('?'));
    ctx_.head = &request.head();
    ctx_.client_socket = request.socket().impl()->sockfd();
    response_.write_to_socket(ctx_.client_socket, ctx_.method == "HEAD");
    ctx_.client_closed = [fd = ctx_.client_socket] { return peer_closed(fd); };
    response_.before_complete_send([](void* run) { static_cast<Run*>(run)->count(); }, this);
  }

  void execute() {
    core::RequestLogFields log_fields;
    try {
      take_body();
      // Counted as active before this check, so a shutdown either sees this request
      // and waits for it, or this request sees the shutdown.
      if (pipeline_.draining_) throw shutting_down();
      route();
      for (const Middleware& middleware : pipeline_.middleware_) middleware(ctx_);
      if (ctx_.route->spec.json_body) {
        require_json_content_type(ctx_);
        if (!ctx_.route->spec.handler_reads_json) ctx_.json = core::parse_json_body(ctx_.body);
      }
      ctx_.route->spec.handler(ctx_, response_);
      if (!response_.sent()) throw std::logic_error("handler returned without a response");
    } catch (const ApiError& e) {
      refuse(e);
    } catch (const core::DomainError& e) {
      if (e.kind() == core::ErrorKind::internal)
        fail_internal(e.what());
      else
        refuse(from_domain_error(e));
    } catch (const core::StoreError& e) {
      if (!e.for_now()) {
        fail_internal(e.what());
      } else {
        // The detail (paths) stays in the log; the client learns that a retry may work.
        core::log_warn("state store cannot serve for now",
                       {{"request_id", ctx_.request_id}, {"error", e.what()}});
        refuse(from_domain_error(core::DomainError(
            core::ErrorKind::unavailable, std::string("the state store cannot serve for now: ") +
                                              sqlite3_errstr(e.sqlite_code()))));
      }
    } catch (const std::exception& e) {
      fail_internal(e.what());
    } catch (...) {
      fail_internal("non-standard exception");
    }
    log_access(ctx_, response_.status(), started_, log_fields.fields());
    count();  // a stream: its end is written after this
    if (unread_bytes_ && !response_.client_gone())
      discard_until_client_stops(request_, kLingerBudgetMs);
  }

 private:
  void take_body() {
    RequestBody body = read_request_body(request_, pipeline_.options_.max_body_bytes);
    if (body.unread_bytes) {
      unread_bytes_ = true;
      response_.close_connection();
    }
    if (body.error) throw *body.error;
    ctx_.body = std::move(body.data);
  }

  void route() {
    const auto target = split_request_target(request_.getURI());
    if (!target) throw ApiError(ErrorCode::invalid_request, "unsupported request target");
    ctx_.path = target->path;
    RouteMatch match = pipeline_.router_->match(ctx_.method, ctx_.path);
    if (match.outcome == RouteMatch::Outcome::not_found)
      throw ApiError(ErrorCode::not_found, "no route for " + ctx_.method + " " + ctx_.path);
    if (match.outcome == RouteMatch::Outcome::method_not_allowed) {
      throw ApiError(ErrorCode::method_not_allowed,
                     "method " + ctx_.method + " is not allowed on " + ctx_.path)
          .with_header("Allow", join(match.allowed, ", "));
    }
    auto query = parse_query(target->query);
    if (!query) throw ApiError(ErrorCode::invalid_request, "malformed percent-escape in query");
    for (const auto& [name, value] : *query) {
      if (!text::is_utf8(name) || !text::is_utf8(value))
        throw ApiError(ErrorCode::invalid_request, "the query is not UTF-8 once percent-decoded");
    }
    if (auto problem = query_problem(match.route->spec, *query))
      throw ApiError(ErrorCode::invalid_request, *problem);
    ctx_.query = std::move(*query);
    ctx_.route = match.route;
    ctx_.params = std::move(match.params);
    ctx_.cell = std::move(match.cell);
  }

  // The request in /metrics, once: before a complete body is sent, so that a client
  // holding the response sees it counted in its next scrape.
  void count() {
    if (counted_) return;
    counted_ = true;
    if (auto* metrics = core::metrics::active())
      metrics->request_served(
          ctx_.route ? std::string_view(ctx_.route->mounted_path) : core::metrics::kUnmatched,
          ctx_.method, response_.status(), std::chrono::steady_clock::now() - started_,
          upstream_.time());
  }

  void refuse(const ApiError& error) {
    if (response_.sent()) {
      // A handler that already started its response (a stream) cannot change it now;
      // the client learns of the failure by the connection closing.
      core::log_warn("error after response started",
                     {{"request_id", ctx_.request_id}, {"code", error.code()}});
      response_.close_connection();
      return;
    }
    if (const ErrorBody* body = pipeline_.router_->error_body_for(ctx_.path))
      response_.send_error(error, (*body)(error, ctx_.request_id));
    else
      response_.send_error(error);
  }

  void fail_internal(const char* detail) {
    core::log_error("request failed", {{"request_id", ctx_.request_id},
                                       {"method", ctx_.method},
                                       {"path", ctx_.path},
                                       {"error", detail}});
    refuse(ApiError(ErrorCode::internal, "internal error"));
  }

  const RequestPipeline& pipeline_;
  ApiRequest& request_;
  std::chrono::steady_clock::time_point started_;
  core::metrics::RequestUpstream upstream_;
  Response response_;
  RequestContext ctx_;
  bool unread_bytes_ = false;
  bool counted_ = false;
};

RequestPipeline::RequestPipeline(std::shared_ptr<const Router> router, PipelineOptions options)
    : router_(std::move(router)), options_(options) {
  if (!router_) throw std::invalid_argument("RequestPipeline needs a router");
}

void RequestPipeline::add_middleware(Middleware middleware) {
  middleware_.push_back(std::move(middleware));
}

void RequestPipeline::reject_malformed(Poco::Net::HTTPServerResponse& raw,
                                       const std::string& detail, const std::string& message) {
  const auto started = std::chrono::steady_clock::now();
  RequestContext ctx;
  ctx.request_id = generate_request_id();
  Response response(raw, ctx.request_id);
  response.close_connection();
  core::log_debug("malformed request", {{"request_id", ctx.request_id}, {"error", detail}});
  const ApiError error(ErrorCode::invalid_request, message);
  // Counted before it is sent, as RequestPipeline::Run::count says why.
  if (auto* metrics = core::metrics::active())
    metrics->request_served(core::metrics::kUnmatched, "", error.http_status(),
                            std::chrono::steady_clock::now() - started, std::nullopt);
  response.send_error(error);
  log_access(ctx, response.status(), started, core::LogFields());
}

void RequestPipeline::handle(ApiRequest& request, Poco::Net::HTTPServerResponse& response) {
  ActiveRequest active(active_);
  Run(*this, request, response).execute();
}

}  // namespace agentrt::server
