#include "server/api/openai_routes.h"

#include "core/openai/background_runs.h"
#include "core/openai/chat_completions.h"
#include "core/openai/models.h"
#include "core/openai/openai_fields.h"
#include "core/openai/response_lookup.h"
#include "core/openai/responses.h"
#include "server/http/client_watch.h"
#include "server/http/response.h"
#include "server/http/sse_stream.h"
#include "server/http/token_shapes.h"

#include <chrono>

namespace agentrt::server::api {
namespace {

const char* error_type(const ApiError& error) {
  // OpenAI's own answer for an unknown model says invalid_request_error; an upstream's
  // rate limit keeps agentrt's status (503, after agentd's retries) and says what it was.
  if (error.code() == "model_not_found") return "invalid_request_error";
  if (error.code() == "rate_limit_exceeded") return "rate_limit_error";
  switch (error.http_status()) {
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 429:
      return "rate_limit_error";
    default:
      return error.http_status() >= 500 ? "server_error" : "invalid_request_error";
  }
}

// The handler's refusals with the field they name (core/openai/openai_fields.h); an
// internal error goes on as it is, for the pipeline to log.
Handler naming_param(Handler handler) {
  return [handler = std::move(handler)](RequestContext& ctx, Response& response) {
    try {
      handler(ctx, response);
    } catch (const core::DomainError& e) {
      if (e.kind() == core::ErrorKind::internal) throw;
      ApiError error = from_domain_error(e);
      error.with_param(core::openai::param_of(e));
      throw error;
    }
  };
}

void chat_completions(core::Engine& engine, RequestContext& ctx, Response& response) {
  core::openai::ChatCompletion call(engine.runs(), engine.providers(), ctx.cell, *ctx.principal,
                                    core::openai::parse_chat_completion(ctx.body));
  ClientWatch client(ctx.client_closed);
  auto client_gone = [&client] { return client.gone(); };
  if (!call.streams()) {
    response.send_json_text(200, call.answer(client_gone));
    return;
  }
  // Revoking the token interrupts the run, as it does a /run stream.
  auto lease = engine.auth().hold(*ctx.principal, [live = call.run().live] { live->cancel(); });
  SseStream stream(response, std::chrono::milliseconds(engine.config().limits.sse_ping_ms),
                   ctx.client_closed, ctx.client_socket, SseStream::Head::with_first_event);
  call.stream(stream, client_gone);
}

void responses(core::Engine& engine, core::openai::BackgroundRuns& background, RequestContext& ctx,
               Response& response) {
  auto call = std::make_shared<core::openai::ResponseCall>(
      engine.runs(), engine.providers(), ctx.cell, *ctx.principal,
      core::openai::parse_responses_request(ctx.body));
  if (call->background()) {
    const std::string pending = call->pending_object();
    background.start(call);
    response.send_json_text(200, pending);
    return;
  }
  ClientWatch client(ctx.client_closed);
  auto client_gone = [&client] { return client.gone(); };
  if (!call->streams()) {
    response.send_json_text(200, call->answer(client_gone));
    return;
  }
  // Revoking the token interrupts the run, as it does a /run stream.
  auto lease = engine.auth().hold(*ctx.principal, [live = call->run().live] { live->cancel(); });
  SseStream stream(response, std::chrono::milliseconds(engine.config().limits.sse_ping_ms),
                   ctx.client_closed, ctx.client_socket, SseStream::Head::with_first_event);
  call->stream(stream, client_gone);
}

// ?starting_after=N: a sequence_number, or none (-1: from the first event).
int64_t starting_after(const RequestContext& ctx) {
  const std::optional<std::string> after = ctx.query_param("starting_after");
  if (!after) return -1;
  if (after->empty() || after->size() > 12 ||
      after->find_first_not_of("0123456789") != std::string::npos)
    throw core::openai::bad_param("starting_after",
                                  "Invalid 'starting_after': expected a sequence_number.");
  return std::stoll(*after);
}

void get_response(core::Engine& engine, RequestContext& ctx, Response& response) {
  const std::optional<std::string> stream = ctx.query_param("stream");
  if (stream && *stream != "true" && *stream != "false")
    throw core::openai::bad_param("stream", "Invalid 'stream': expected true or false.");
  const int64_t after = starting_after(ctx);
  if (!stream || *stream == "false") {
    response.send_json_text(200, core::openai::stored_response(engine.runs(), ctx.cell,
                                                               *ctx.principal, ctx.param("id")));
    return;
  }
  auto lease = engine.auth().hold(*ctx.principal);
  SseStream sse(response, std::chrono::milliseconds(engine.config().limits.sse_ping_ms),
                ctx.client_closed, ctx.client_socket, SseStream::Head::with_first_event);
  sse.end_when([&lease] { return lease.revoked(); });
  core::openai::replay_response(engine.runs(), ctx.cell, *ctx.principal, ctx.param("id"), after,
                                sse, std::chrono::milliseconds(100));
  sse.begin();
}

}  // namespace

nlohmann::json openai_error_body(const ApiError& error, std::string_view) {
  std::string scratch;
  const std::string_view message = redact_token_shapes(error.what(), scratch);
  return {{"error",
           {{"message", message},
            {"type", error_type(error)},
            {"param", error.param().empty() ? nlohmann::json() : nlohmann::json(error.param())},
            {"code", error.code()}}}};
}

void add_openai_routes(Router& router, core::Engine& engine) {
  router.add_error_body("/v1", RouteScope::cell, openai_error_body);
  router.add({"POST", "/v1/chat/completions", RouteScope::cell, RouteAccess::token, true,
              naming_param([&engine](RequestContext& ctx, Response& response) {
                chat_completions(engine, ctx, response);
              }),
              /*handler_reads_json=*/true});
  // Owned by the routes, so that agentd's shutdown, which ends them, ends its threads.
  auto background = std::make_shared<core::openai::BackgroundRuns>();
  router.add({"POST", "/v1/responses", RouteScope::cell, RouteAccess::token, true,
              naming_param([&engine, background](RequestContext& ctx, Response& response) {
                responses(engine, *background, ctx, response);
              }),
              /*handler_reads_json=*/true});
  router.add(RouteSpec{
      "GET", "/v1/responses/{id}", RouteScope::cell, RouteAccess::token, false,
      naming_param([&engine](RequestContext& ctx, Response& response) {
        get_response(engine, ctx, response);
      })}.taking({"stream", "starting_after", "include", "include_obfuscation"}));
  router.add({"POST", "/v1/responses/{id}/cancel", RouteScope::cell, RouteAccess::token, false,
              naming_param([&engine](RequestContext& ctx, Response& response) {
                response.send_json_text(
                    200, core::openai::cancel_response(engine.runs(), ctx.cell, *ctx.principal,
                                                       ctx.param("id")));
              })});
  router.add({"GET", "/v1/models", RouteScope::cell, RouteAccess::token, false,
              naming_param([&engine](RequestContext&, Response& response) {
                response.send_json(200, core::openai::model_list(engine.providers()));
              })});
  router.add({"GET", "/v1/models/{model}", RouteScope::cell, RouteAccess::token, false,
              naming_param([&engine](RequestContext& ctx, Response& response) {
                response.send_json(
                    200, core::openai::model_object(engine.providers(), ctx.param("model")));
              })});
}

}  // namespace agentrt::server::api
