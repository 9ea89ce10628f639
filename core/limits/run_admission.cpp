#include "core/limits/run_admission.h"

namespace agentrt::core::limits {

RunAdmission& RunAdmission::operator=(RunAdmission&& other) noexcept {
  if (this == &other) return *this;
  end();
  limiter_ = other.limiter_;
  cell_ = std::move(other.cell_);
  run_key_ = std::move(other.run_key_);
  day_ = other.day_;
  other.limiter_ = nullptr;
  other.run_key_.clear();
  return *this;
}

void RunAdmission::count_tokens(int64_t tokens) {
  if (limiter_ && tokens > 0) limiter_->add_tokens(cell_, day_, static_cast<uint64_t>(tokens));
}

void RunAdmission::end() {
  if (limiter_ && !run_key_.empty()) limiter_->end_run(run_key_);
  run_key_.clear();
}

}  // namespace agentrt::core::limits
