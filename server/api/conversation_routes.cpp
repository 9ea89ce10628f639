#include "server/api/conversation_routes.h"

#include "core/domain/errors.h"
#include "core/runs/run_request.h"
#include "server/http/client_watch.h"
#include "server/http/response.h"
#include "server/http/sse_stream.h"

#include <chrono>

namespace agentrt::server::api {
namespace {

std::chrono::milliseconds ping_interval(const core::Engine& engine) {
  return std::chrono::milliseconds(engine.config().limits.sse_ping_ms);
}

// `?after=`, else the Last-Event-ID header an EventSource sends when it reconnects
// (docs/conversations.md): both say the last seq the client has.
int64_t after_param(const RequestContext& ctx) {
  const char* what = "query parameter 'after'";
  std::optional<std::string> after = ctx.query_param("after");
  if (!after) {
    after = ctx.last_event_id();
    what = "header 'Last-Event-ID'";
  }
  if (!after) return 0;
  bool digits = !after->empty() && after->size() <= 12 &&
                after->find_first_not_of("0123456789") == std::string::npos;
  if (!digits)
    throw core::invalid(std::string(what) + " must be a non-negative integer of at most 12 digits");
  return std::stoll(*after);
}

// Read from its text (core/runs/run_request.h), with the refusals of every JSON body.
core::RunRequest run_request(const RequestContext& ctx) {
  return core::parse_run_request(ctx.body);
}

}  // namespace

void add_conversation_routes(Router& router, core::Engine& engine) {
  router.add({"POST", "/run", RouteScope::cell, RouteAccess::token, true,
              [&engine](RequestContext& ctx, Response& response) {
                // Everything that can be refused is refused here, as plain JSON.
                core::PreparedRun run =
                    engine.runs().prepare(ctx.cell, *ctx.principal, run_request(ctx));
                // Revoking the token interrupts the run: its client is told by `done`.
                auto lease =
                    engine.auth().hold(*ctx.principal, [live = run.live] { live->cancel(); });
                SseStream stream(response, ping_interval(engine), ctx.client_closed,
                                 ctx.client_socket, SseStream::Head::with_first_event);
                engine.runs().execute(run, stream);
              },
              /*handler_reads_json=*/true});
  router.add({"POST", "/chat", RouteScope::cell, RouteAccess::token, true,
              [&engine](RequestContext& ctx, Response& response) {
                ClientWatch client(ctx.client_closed);
                auto client_gone = [&client] { return client.gone(); };
                response.send_json_text(200, engine.runs().chat(ctx.cell, *ctx.principal,
                                                                run_request(ctx), client_gone));
              },
              /*handler_reads_json=*/true});
  router.add(RouteSpec{
      "GET", "/runs/{runID}/events", RouteScope::cell, RouteAccess::token, false,
      [&engine](RequestContext& ctx, Response& response) {
        const int64_t after = after_param(ctx);
        // The run is looked up before the stream starts, so an unknown run is a 404.
        engine.runs().check_run(ctx.cell, *ctx.principal, ctx.param("runID"));
        // Revoking the token ends the stream; the run it follows is not this
        // client's to stop.
        auto lease = engine.auth().hold(*ctx.principal);
        // The head waits for the first event: a run that its session's deletion
        // took meanwhile is still a 404 (RunService::follow).
        SseStream stream(response, ping_interval(engine), ctx.client_closed, ctx.client_socket,
                         SseStream::Head::with_first_event);
        stream.end_when([&lease] { return lease.revoked(); });
        stream.numbered_events();
        engine.runs().follow(ctx.cell, *ctx.principal, ctx.param("runID"), after, stream,
                             std::chrono::milliseconds(100));
        stream.begin();
      }}.taking({"after"}));
}

void add_session_routes(Router& router, core::Engine& engine) {
  router.add(RouteSpec{
      "GET", "/sessions", RouteScope::cell, RouteAccess::token, false,
      [&engine](RequestContext& ctx, Response& response) {
        auto page = core::parse_page_request(ctx.query_param("limit"), ctx.query_param("cursor"));
        response.send_json(200, engine.runs().list_sessions(ctx.cell, *ctx.principal,
                                                            ctx.query_param("actor"), page));
      }}.taking({"limit", "cursor", "actor"}));
  router.add(RouteSpec{
      "GET", "/sessions/{sid}/messages", RouteScope::cell, RouteAccess::token, false,
      [&engine](RequestContext& ctx, Response& response) {
        auto page = core::parse_page_request(ctx.query_param("limit"), ctx.query_param("cursor"));
        response.send_json(
            200, engine.runs().messages(ctx.cell, *ctx.principal, ctx.param("sid"), page));
      }}.taking({"limit", "cursor"}));
  router.add({"POST", "/sessions/{sid}/interrupt", RouteScope::cell, RouteAccess::token, false,
              [&engine](RequestContext& ctx, Response& response) {
                response.send_json(
                    200, engine.runs().interrupt(ctx.cell, *ctx.principal, ctx.param("sid")));
              }});
  router.add({"DELETE", "/sessions/{sid}", RouteScope::cell, RouteAccess::token, false,
              [&engine](RequestContext& ctx, Response& response) {
                engine.runs().delete_session(ctx.cell, *ctx.principal, ctx.param("sid"));
                response.send_no_content();
              }});
}

}  // namespace agentrt::server::api
