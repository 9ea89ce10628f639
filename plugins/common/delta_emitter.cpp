#include "common/delta_emitter.h"

namespace agentrt::providers {
namespace {

[[noreturn]] void cancelled() {
  throw sdk::Error(AGENTRT_ERR_CANCELLED, "cancelled");
}

}  // namespace

void DeltaEmitter::text(std::string_view fragment) {
  if (finished_ || fragment.empty()) return;
  if (!sink_.text(fragment)) cancelled();
}

void DeltaEmitter::finish(const std::optional<Usage>& usage, const std::string& reason) {
  if (finished_) return;
  finished_ = true;
  if (usage && !sink_.usage(usage->input_tokens, usage->output_tokens)) cancelled();
  if (!sink_.finish(reason)) cancelled();
}

}  // namespace agentrt::providers
