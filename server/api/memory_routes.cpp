#include "server/api/memory_routes.h"

#include "server/http/response.h"

namespace agentrt::server::api {
namespace {

core::MemoryQuery memory_query(const RequestContext& ctx) {
  core::MemoryQuery query;
  query.layer = ctx.query_param("layer");
  query.actor = ctx.query_param("actor");
  query.namespace_ = ctx.query_param("namespace");
  query.session_id = ctx.query_param("session_id");
  query.limit = ctx.query_param("limit");
  query.cursor = ctx.query_param("cursor");
  return query;
}

// An entry is named by its id: only `actor` (whose view, for an admin) narrows it. The
// lists' filters turned a stray ?namespace= into a 404 (audit 8a, F14).
core::MemoryQuery entry_query(const RequestContext& ctx) {
  core::MemoryQuery query;
  query.actor = ctx.query_param("actor");
  return query;
}

}  // namespace

void add_memory_routes(Router& router, core::Engine& engine) {
  router.add({"POST", "/memory", RouteScope::cell, RouteAccess::token, true,
              [&engine](RequestContext& ctx, Response& response) {
                response.send_json(201, engine.memory().save(ctx.cell, *ctx.principal, ctx.json));
              }});
  router.add({"GET", "/memory", RouteScope::cell, RouteAccess::token, false,
              [&engine](RequestContext& ctx, Response& response) {
                response.send_json(
                    200, engine.memory().list(ctx.cell, *ctx.principal, memory_query(ctx)));
              }});
  router.add({"GET", "/memory/counts", RouteScope::cell, RouteAccess::token, false,
              [&engine](RequestContext& ctx, Response& response) {
                response.send_json(
                    200, engine.memory().counts(ctx.cell, *ctx.principal, memory_query(ctx)));
              }});
  router.add({"POST", "/memory/search", RouteScope::cell, RouteAccess::token, true,
              [&engine](RequestContext& ctx, Response& response) {
                response.send_json(200, engine.memory().search(ctx.cell, *ctx.principal, ctx.json));
              }});
  router.add({"DELETE", "/memory/layer", RouteScope::cell, RouteAccess::token, false,
              [&engine](RequestContext& ctx, Response& response) {
                response.send_json(
                    200, engine.memory().clear_layer(ctx.cell, *ctx.principal, memory_query(ctx)));
              }});
  router.add({"GET", "/memory/{id}", RouteScope::cell, RouteAccess::token, false,
              [&engine](RequestContext& ctx, Response& response) {
                response.send_json(200, engine.memory().get(ctx.cell, *ctx.principal,
                                                            ctx.param("id"), entry_query(ctx)));
              }});
  router.add({"DELETE", "/memory/{id}", RouteScope::cell, RouteAccess::token, false,
              [&engine](RequestContext& ctx, Response& response) {
                engine.memory().remove(ctx.cell, *ctx.principal, ctx.param("id"), entry_query(ctx));
                response.send_no_content();
              }});
}

}  // namespace agentrt::server::api
