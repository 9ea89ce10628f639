// The whole client side of one streamed completion, in process: post_streaming over
// libcurl against an OpenAI-compatible upstream (bench/upstream/mock_upstream), each
// body byte through the OpenAI decoder into a counting sink. Measures this thread's
// CPU per request, which is what agentd's worker spends outside the engine.
#pragma once

#include <string>

namespace agentrt::bench {

// `base_url` like http://127.0.0.1:PORT/v1. Prints one table row; false on failure.
bool run_transport(const std::string& base_url, int requests, int reps);

}  // namespace agentrt::bench
