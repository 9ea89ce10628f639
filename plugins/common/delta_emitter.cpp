#include "common/delta_emitter.h"

namespace agentrt::providers {
namespace {

[[noreturn]] void cancelled() {
  throw sdk::Error(AGENTRT_ERR_CANCELLED, "cancelled");
}

// A vendor's own finish word is passed on, but the SDK writes it into JSON as is, so
// anything beyond a plain identifier (quotes, backslashes, control bytes) is replaced.
std::string plain_word(const std::string& word) {
  std::string out = word.substr(0, 64);
  for (char& c : out) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-' || c == '.';
    if (!plain) c = '_';
  }
  return out.empty() ? "unknown" : out;
}

}  // namespace

void DeltaEmitter::text(std::string_view fragment) {
  if (finished_ || fragment.empty()) return;
  pending_.append(fragment);
}

void DeltaEmitter::tool_call(std::string_view id, std::string_view name,
                             std::string_view arguments) {
  if (finished_) return;
  flush();
  if (!sink_.tool_call(id, name, arguments)) cancelled();
}

void DeltaEmitter::flush() {
  if (pending_.empty()) return;
  const bool more = sink_.text(pending_);
  pending_.clear();
  if (!more) cancelled();
}

void DeltaEmitter::flush_before_failure() noexcept {
  if (pending_.empty()) return;
  try {
    (void)sink_.text(pending_);
  } catch (...) {
    // A sink that throws already failed the call; the original failure still goes up.
  }
  pending_.clear();
}

void DeltaEmitter::input_so_far(std::optional<int64_t> input_tokens) {
  if (finished_ || !input_tokens) return;
  if (!sink_.emit(AGENTRT_DELTA_USAGE, "{\"input_tokens\":" + std::to_string(*input_tokens) + "}"))
    cancelled();
}

void DeltaEmitter::finish(const std::optional<Usage>& usage, const std::string& reason) {
  if (finished_) return;
  flush();
  finished_ = true;
  if (usage && !sink_.usage(usage->input_tokens, usage->output_tokens)) cancelled();
  if (!sink_.finish(plain_word(reason))) cancelled();
}

}  // namespace agentrt::providers
