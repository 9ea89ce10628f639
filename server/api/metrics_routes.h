// GET /metrics: agentd's metrics in Prometheus' text format (core/metrics/metrics.h), at
// the root in both modes. Who may read them is `metrics.access`: off (404, as an
// unknown route), loopback (clients on this host; others 403) or admin (an admin token
// of no cell, as every root /admin route).
#pragma once

#include "core/engine/engine.h"
#include "server/http/router.h"

namespace agentrt::server::api {

void add_metrics_routes(Router& router, core::Engine& engine);

}  // namespace agentrt::server::api
