// What a provider plugin does with the engine's request before it sends it: the
// request read (parse_chat_request) and the vendor's body written (request_body). It
// grows with the session's history, not with the answer.
#pragma once

namespace agentrt::bench {

// What the messages say: short plain ASCII, or prose of about the given bytes with
// newlines, quotes, a line of code and punctuation past ASCII, in a script whose
// letters are ASCII with a few accented ones (latin), two bytes each (cyrillic) or
// three (cjk).
enum class HistoryText { plain, latin, cyrillic, cjk };

// Requests in the engine's shape (core/runs/provider_request.cpp) with `messages`
// messages of `text`. Prints one table row per vendor: CPU ns per request read, per
// body written, and the two per message.
void run_request_bench(int messages, int bytes, HistoryText text, double seconds, int reps);

}  // namespace agentrt::bench
