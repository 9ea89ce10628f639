#include "transport_bench.h"

#include "counting_sink.h"

#include "common/curl_handles.h"
#include "common/http_stream.h"
#include "openai/openai_stream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace agentrt::bench {
namespace {

using Clock = std::chrono::steady_clock;

// The request agentd's OpenAI plugin sends for a one-line question.
providers::HttpRequest request_for(const std::string& base_url) {
  providers::HttpRequest request;
  request.url = base_url + "/chat/completions";
  request.headers = {"Content-Type: application/json", "Accept: text/event-stream",
                     "Authorization: Bearer sk-bench"};
  request.body = R"({"model":"mock-model","messages":[{"role":"user","content":"hello"}],)"
                 R"("stream":true,"stream_options":{"include_usage":true}})";
  request.user_agent = "agentrt-openai/1.0";
  return request;
}

// One completion as ChatProvider::stream runs it; false unless it finished.
bool one_request(const providers::HttpRequest& request, CountingSink& sink) {
  sdk::Sink wrapped(&sink.c);
  providers::DeltaEmitter out(wrapped);
  providers::openai::ChunkDecoder decoder(out);
  providers::StreamCallbacks callbacks;
  callbacks.on_body = [&](std::string_view bytes) { decoder.feed(bytes); };
  callbacks.cancelled = [&] { return wrapped.cancelled(); };
  callbacks.complete = [&] { return decoder.complete(); };
  callbacks.flush = [&] { out.flush(); };
  providers::HttpResponse response = providers::post_streaming(request, callbacks);
  if (response.status != 200) return false;
  decoder.end_of_stream();
  return true;
}

}  // namespace

bool run_transport(const std::string& base_url, int requests, int reps) {
  providers::ensure_curl_initialised();
  const providers::HttpRequest request = request_for(base_url);
  CountingSink sink;
  std::vector<double> cpu, wall;
  try {
    for (int i = 0; i < 50; ++i) one_request(request, sink);  // a warm connection
    for (int r = 0; r < reps; ++r) {
      const double cpu_start = cpu_ns();
      const Clock::time_point wall_start = Clock::now();
      for (int i = 0; i < requests; ++i)
        if (!one_request(request, sink)) return false;
      cpu.push_back((cpu_ns() - cpu_start) / requests);
      wall.push_back(std::chrono::duration<double, std::nano>(Clock::now() - wall_start).count() /
                     requests);
    }
  } catch (const sdk::Error& e) {
    std::fprintf(stderr, "transport: %s\n", e.what());
    return false;
  }
  std::sort(cpu.begin(), cpu.end());
  std::sort(wall.begin(), wall.end());
  std::printf("| client CPU per request (median) | best | wall per request (median) |\n");
  std::printf("|---:|---:|---:|\n");
  std::printf("| %.1f us | %.1f us | %.1f us |\n", cpu[cpu.size() / 2] / 1e3, cpu.front() / 1e3,
              wall[wall.size() / 2] / 1e3);
  return true;
}

}  // namespace agentrt::bench
