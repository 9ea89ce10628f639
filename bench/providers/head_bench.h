// CPU per response head read by the built-in HTTP client (HttpResponseReader): the
// mock's head of three fields, and a head shaped as OpenAI sends one.
#pragma once

namespace agentrt::bench {

// Prints one table row a head: bytes, fields, ns a head (median and best of `reps`
// runs of about `seconds` of CPU each).
void run_head_bench(double seconds, int reps);

}  // namespace agentrt::bench
