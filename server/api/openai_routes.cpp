#include "server/api/openai_routes.h"

#include "core/openai/chat_completions.h"
#include "core/openai/models.h"
#include "core/openai/openai_fields.h"
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

void responses(core::Engine& engine, RequestContext& ctx, Response& response) {
  core::openai::ResponseCall call(engine.runs(), engine.providers(), ctx.cell, *ctx.principal,
                                  core::openai::parse_responses_request(ctx.body));
  ClientWatch client(ctx.client_closed);
  auto client_gone = [&client] { return client.gone(); };
  if (!call.streams()) {
    response.send_json_text(200, call.answer(client_gone));
    return;
  }
  auto lease = engine.auth().hold(*ctx.principal, [live = call.run().live] { live->cancel(); });
  SseStream stream(response, std::chrono::milliseconds(engine.config().limits.sse_ping_ms),
                   ctx.client_closed, ctx.client_socket, SseStream::Head::with_first_event);
  call.stream(stream, client_gone);
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
  router.add({"POST", "/v1/responses", RouteScope::cell, RouteAccess::token, true,
              naming_param([&engine](RequestContext& ctx, Response& response) {
                responses(engine, ctx, response);
              }),
              /*handler_reads_json=*/true});
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
