// How each run ended, for agentrt_runs_total and agentrt_tokens_total
// (core/metrics/metrics.h).
#pragma once

#include "core/domain/errors.h"
#include "core/metrics/metrics.h"
#include "core/runs/run_service.h"

namespace agentrt::core {

// Runs `execute` (a run's execution) and counts its end: the done reason of the summary
// it returns, with the tokens the done event reports; "refused" when it throws because
// the provider refused the request before anything ran (400, nothing stored); "error"
// when it throws for anything else (the run could not be stored). Without metrics it
// only runs it.
template <class Execute>
RunSummary counted_run(const PreparedRun& run, Execute&& execute) {
  metrics::Metrics* measured = metrics::active();
  if (measured == nullptr) return execute();
  const std::string& cell = run.live->cell;
  const std::string& model = run.model.model.id;
  try {
    RunSummary summary = execute();
    measured->run_ended(summary.reason, cell, model, summary.input_tokens, summary.output_tokens);
    return summary;
  } catch (const DomainError& e) {
    measured->run_ended(e.kind() == ErrorKind::invalid ? "refused" : "error", cell, model, 0, 0);
    throw;
  } catch (...) {
    measured->run_ended("error", cell, model, 0, 0);
    throw;
  }
}

}  // namespace agentrt::core
