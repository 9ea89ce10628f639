// What a provider plugin does with the engine's request before it sends it: the
// request read (parse_chat_request: the scan, or nlohmann where the scan gives up) and
// the vendor's body written (request_body). On a long session this is a fifth of a
// /chat's CPU (bench/README.md), and it grows with the history, not with the answer.
#pragma once

namespace agentrt::bench {

// Requests in the engine's shape (core/runs/provider_request.cpp) with
// `messages` messages of about `bytes` bytes each: prose with newlines, quotes and
// non-ASCII letters when `prose`, else short plain ASCII. Prints one table row per
// vendor: CPU ns per request read, per body written, and the two per message.
void run_request_bench(int messages, int bytes, bool prose, double seconds, int reps);

}  // namespace agentrt::bench
