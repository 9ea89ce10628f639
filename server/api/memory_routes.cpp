#include "server/api/memory_routes.h"

#include "server/http/response.h"

namespace agentrt::server::api {
namespace {

// The filters the route takes (RouteSpec::query): the pipeline lets through no other
// name, and none twice. An entry, named by its id, takes only `actor` (whose view, for an
// admin): the lists' filters would turn a stray ?namespace= into a 404.
core::MemoryQuery memory_query(const RequestContext& ctx) {
  using Field = std::optional<std::string> core::MemoryQuery::*;
  static const std::pair<std::string_view, Field> kFields[] = {
      {"layer", &core::MemoryQuery::layer},          {"actor", &core::MemoryQuery::actor},
      {"namespace", &core::MemoryQuery::namespace_}, {"session_id", &core::MemoryQuery::session_id},
      {"limit", &core::MemoryQuery::limit},          {"cursor", &core::MemoryQuery::cursor}};
  core::MemoryQuery query;
  for (const auto& [name, value] : ctx.query) {
    for (const auto& [field_name, field] : kFields) {
      if (name == field_name) query.*field = value;
    }
  }
  return query;
}

}  // namespace

void add_memory_routes(Router& router, core::Engine& engine) {
  router.add({"POST", "/memory", RouteScope::cell, RouteAccess::token, true,
              [&engine](RequestContext& ctx, Response& response) {
                response.send_json(201, engine.memory().save(ctx.cell, *ctx.principal, ctx.json));
              }});
  router.add(RouteSpec{
      "GET", "/memory", RouteScope::cell, RouteAccess::token, false,
      [&engine](RequestContext& ctx, Response& response) {
        response.send_json(200, engine.memory().list(ctx.cell, *ctx.principal, memory_query(ctx)));
      }}.taking({"layer", "actor", "namespace", "session_id", "limit", "cursor"}));
  router.add(RouteSpec{
      "GET", "/memory/counts", RouteScope::cell, RouteAccess::token, false,
      [&engine](RequestContext& ctx, Response& response) {
        response.send_json(200,
                           engine.memory().counts(ctx.cell, *ctx.principal, memory_query(ctx)));
      }}.taking({"actor", "namespace", "session_id"}));
  router.add({"POST", "/memory/search", RouteScope::cell, RouteAccess::token, true,
              [&engine](RequestContext& ctx, Response& response) {
                response.send_json(200, engine.memory().search(ctx.cell, *ctx.principal, ctx.json));
              }});
  router.add(RouteSpec{
      "DELETE", "/memory/layer", RouteScope::cell, RouteAccess::token, false,
      [&engine](RequestContext& ctx, Response& response) {
        response.send_json(
            200, engine.memory().clear_layer(ctx.cell, *ctx.principal, memory_query(ctx)));
      }}.taking({"layer", "actor", "namespace", "session_id"}));
  router.add(RouteSpec{
      "GET", "/memory/{id}", RouteScope::cell, RouteAccess::token, false,
      [&engine](RequestContext& ctx, Response& response) {
        response.send_json(
            200, engine.memory().get(ctx.cell, *ctx.principal, ctx.param("id"), memory_query(ctx)));
      }}.taking({"actor"}));
  router.add(RouteSpec{
      "DELETE", "/memory/{id}", RouteScope::cell, RouteAccess::token, false,
      [&engine](RequestContext& ctx, Response& response) {
        engine.memory().remove(ctx.cell, *ctx.principal, ctx.param("id"), memory_query(ctx));
        response.send_no_content();
      }}.taking({"actor"}));
}

}  // namespace agentrt::server::api
