#include "head_bench.h"

#include "counting_sink.h"

#include "common/http_response_reader.h"

#include <cstdio>
#include <string>

namespace agentrt::bench {
namespace {

// What bench/upstream/mock_upstream answers a streamed call with.
const std::string kMockHead =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
    "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n";

// The fields OpenAI's streamed answers carry (values made up, lengths alike): its
// rate-limit fields, Cloudflare's, and two cookies.
const std::string kOpenAiHead =
    "HTTP/1.1 200 OK\r\n"
    "date: Sat, 28 Nov 2026 09:00:00 GMT\r\n"
    "content-type: text/event-stream; charset=utf-8\r\n"
    "transfer-encoding: chunked\r\n"
    "connection: keep-alive\r\n"
    "access-control-expose-headers: X-Request-ID\r\n"
    "openai-organization: user-abcdefghijklmnopqrstuvwx\r\n"
    "openai-processing-ms: 187\r\n"
    "openai-project: proj_abcdefghijklmnopqrstuvwx\r\n"
    "openai-version: 2020-10-01\r\n"
    "x-ratelimit-limit-requests: 10000\r\n"
    "x-ratelimit-limit-tokens: 30000000\r\n"
    "x-ratelimit-remaining-requests: 9999\r\n"
    "x-ratelimit-remaining-tokens: 29999990\r\n"
    "x-ratelimit-reset-requests: 6ms\r\n"
    "x-ratelimit-reset-tokens: 0s\r\n"
    "x-request-id: req_0123456789abcdef0123456789abcdef\r\n"
    "strict-transport-security: max-age=31536000; includeSubDomains; preload\r\n"
    "cf-cache-status: DYNAMIC\r\n"
    "set-cookie: __cf_bm=AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghijklmnopqrstuvwxyz"
    "0123456789-1764320400-1.0.1.1-AbCdEfGhIjKlMnOpQrStUvWxYz; path=/; expires=Sat, "
    "28-Nov-26 09:30:00 GMT; domain=.api.openai.com; HttpOnly; Secure; SameSite=None\r\n"
    "x-content-type-options: nosniff\r\n"
    "set-cookie: _cfuvid=AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-1764320400000-0.0.1.1-604800000; "
    "path=/; domain=.api.openai.com; HttpOnly; Secure; SameSite=None\r\n"
    "server: cloudflare\r\n"
    "cf-ray: 8e1234567890abcd-AMS\r\n"
    "alt-svc: h3=\":443\"; ma=86400\r\n\r\n";

// One head read as PlainTransfer reads it: a new reader, the head in one piece.
size_t read_head(const std::string& head) {
  providers::HttpResponseReader reader([](std::string_view) {});
  reader.feed(head);
  return reader.headers().size();
}

void report(const char* name, const std::string& head, double seconds, int reps) {
  const size_t fields = read_head(head);
  const CpuFigure f =
      cpu_ns_per_call([&] { read_head(head); }, seconds, reps, /*warm_up=*/20, /*batch=*/100);
  std::printf("| %s | %zu | %zu | %.0f | %.0f |\n", name, head.size(), fields, f.median, f.best);
}

}  // namespace

void run_head_bench(double seconds, int reps) {
  std::printf("| head | bytes | fields | ns a head (median) | ns a head (best) |\n");
  std::printf("|---|---:|---:|---:|---:|\n");
  report("the mock's", kMockHead, seconds, reps);
  report("OpenAI's shape", kOpenAiHead, seconds, reps);
}

}  // namespace agentrt::bench
