#include "bm25.h"

#include <algorithm>
#include <cmath>

namespace agentrt::memory_sqlite::bm25 {

double idf(int64_t rows, int64_t df) {
  double n = static_cast<double>(std::max<int64_t>(rows, df));
  double d = static_cast<double>(df);
  return std::log(1.0 + (n - d + 0.5) / (d + 0.5));
}

double term_weight(int64_t tf, int64_t row_tokens, double average_tokens) {
  double f = static_cast<double>(tf);
  double relative_length =
      average_tokens > 0 ? static_cast<double>(row_tokens) / average_tokens : 1;
  return f * (kK1 + 1) / (f + kK1 * (1 - kB + kB * relative_length));
}

int64_t estimate_df(int64_t seen, int64_t oldest_seq, int64_t min_seq, int64_t max_seq,
                    int64_t rows) {
  double covered = static_cast<double>(max_seq - oldest_seq + 1);
  double span = static_cast<double>(max_seq - min_seq + 1);
  if (covered <= 0 || span <= 0) return std::max(seen, int64_t{0});
  auto estimate = static_cast<int64_t>(std::llround(static_cast<double>(seen) * span / covered));
  return std::clamp(estimate, seen, std::max(seen, rows));
}

}  // namespace agentrt::memory_sqlite::bm25
