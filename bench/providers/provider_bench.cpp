// CPU per streamed event of each vendor's stream decoder: recorded bodies fed in
// realistic and awkward pieces through the decoder a provider plugin uses, into a
// sink that only counts. No network, no plugin host: this is the decode path alone
// (framing, JSON, delta emission). See bench/README.md, "Provider decoders and requests".
#include "counting_sink.h"
#include "recorded_streams.h"
#include "request_bench.h"
#include "transport_bench.h"

#include "anthropic/anthropic_stream.h"
#include "ollama/ollama_stream.h"
#include "openai/openai_stream.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace agentrt::bench {
namespace {

std::unique_ptr<providers::StreamDecoder> make_decoder(Vendor vendor,
                                                       providers::DeltaEmitter& out) {
  switch (vendor) {
    case Vendor::openai:
      return std::make_unique<providers::openai::ChunkDecoder>(out);
    case Vendor::anthropic:
      return std::make_unique<providers::anthropic::MessageDecoder>(out);
    case Vendor::ollama:
      return std::make_unique<providers::ollama::ChatLineDecoder>(out);
  }
  return nullptr;
}

// One answer, decoded as ChatProvider does it: a fresh emitter and decoder.
void decode(Vendor vendor, const std::vector<std::string>& pieces, CountingSink& sink) {
  sdk::Sink wrapped(&sink.c);
  providers::DeltaEmitter out(wrapped);
  std::unique_ptr<providers::StreamDecoder> decoder = make_decoder(vendor, out);
  for (const std::string& piece : pieces) {  // a piece a read, as the transports flush
    decoder->feed(piece);
    out.flush();
  }
  decoder->end_of_stream();
}

std::string joined(const std::vector<std::string>& texts) {
  std::string all;
  for (const std::string& text : texts) all += text;
  return all;
}

// The benchmark measures nothing unless the decoder gets the answer right. The answer,
// not the upstream's cut: the fragments of one read reach the sink as one (DeltaEmitter).
void check(Vendor vendor, const RecordedStream& stream, const std::vector<std::string>& pieces) {
  CountingSink sink;
  sink.keep = true;
  decode(vendor, pieces, sink);
  if (joined(sink.texts) != joined(stream.texts) || sink.usages != 1 || sink.finishes != 1) {
    std::fprintf(stderr, "%s: the decoder's output differs from the recorded answer\n",
                 vendor_name(vendor));
    std::exit(1);
  }
}

// A warm-up of 200 answers warms the caches and the heap.
CpuFigure ns_per_answer(Vendor vendor, const std::vector<std::string>& pieces, double seconds,
                        int reps) {
  CountingSink sink;
  return cpu_ns_per_call([&] { decode(vendor, pieces, sink); }, seconds, reps, /*warm_up=*/200,
                         /*batch=*/100);
}

struct Options {
  std::string upstream;  // set: measure the transport against it instead
  int history = 0;       // set: measure reading and writing requests of this many messages
  int message_bytes = 400;
  HistoryText text = HistoryText::latin;
  int requests = 2000;
  int deltas = 16;
  double seconds = 0.5;
  int reps = 5;
  std::vector<Vendor> vendors = {Vendor::openai, Vendor::anthropic, Vendor::ollama};
  std::vector<Split> splits = {Split::per_event, Split::awkward, Split::whole};
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: provider_bench [--deltas N (16)] [--seconds S of CPU per run (0.5)] "
               "[--reps N (5)] [--vendor openai|anthropic|ollama] "
               "[--reads per-event|awkward|whole]\n"
               "       provider_bench --upstream http://127.0.0.1:PORT/v1 [--requests N (2000)] "
               "[--reps N (5)]\n"
               "       provider_bench --history MESSAGES [--message-bytes N (400)] "
               "[--plain 1 | --script latin|cyrillic|cjk] [--seconds S] [--reps N]\n");
  std::exit(2);
}

// Narrows `all` to the one whose name is `value`; false when none is.
template <class T>
bool pick_named(const std::string& value, std::vector<T>& all, const char* (*name)(T)) {
  for (T item : all)
    if (value == name(item)) {
      all = {item};
      return true;
    }
  return false;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc) usage();
    std::string value = argv[++i];
    if (arg == "--deltas") {
      o.deltas = std::max(1, std::atoi(value.c_str()));
    } else if (arg == "--seconds") {
      o.seconds = std::atof(value.c_str());
    } else if (arg == "--upstream") {
      o.upstream = value;
    } else if (arg == "--requests") {
      o.requests = std::max(1, std::atoi(value.c_str()));
    } else if (arg == "--history") {
      o.history = std::max(1, std::atoi(value.c_str()));
    } else if (arg == "--message-bytes") {
      o.message_bytes = std::max(1, std::atoi(value.c_str()));
    } else if (arg == "--plain") {
      if (value != "0") o.text = HistoryText::plain;
    } else if (arg == "--script" && value == "latin") {
      o.text = HistoryText::latin;
    } else if (arg == "--script" && value == "cyrillic") {
      o.text = HistoryText::cyrillic;
    } else if (arg == "--script" && value == "cjk") {
      o.text = HistoryText::cjk;
    } else if (arg == "--reps") {
      o.reps = std::max(1, std::atoi(value.c_str()));
    } else if (arg == "--vendor" && pick_named(value, o.vendors, vendor_name)) {
    } else if (arg == "--reads" && pick_named(value, o.splits, split_name)) {
    } else {
      usage();
    }
  }
  return o;
}

void report(const Options& o) {
  std::printf(
      "| vendor | reads | events/answer | bytes/answer | ns/event (median) | ns/event (best) "
      "| ns/answer (median) | MB/s (median) |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
  for (Vendor vendor : o.vendors) {
    RecordedStream stream = recorded_stream(vendor, o.deltas);
    for (Split split : o.splits) {
      std::vector<std::string> pieces = split_body(stream, vendor, split);
      check(vendor, stream, pieces);
      CpuFigure f = ns_per_answer(vendor, pieces, o.seconds, o.reps);
      const double events = static_cast<double>(stream.events);
      std::printf("| %s | %s | %zu | %zu | %.0f | %.0f | %.0f | %.0f |\n", vendor_name(vendor),
                  split_name(split), stream.events, stream.body.size(), f.median / events,
                  f.best / events, f.median,
                  static_cast<double>(stream.body.size()) * 1e3 / f.median);
      std::fflush(stdout);
    }
  }
}

}  // namespace
}  // namespace agentrt::bench

int main(int argc, char** argv) {
  using namespace agentrt::bench;
  Options o = parse(argc, argv);
  if (!o.upstream.empty()) return run_transport(o.upstream, o.requests, o.reps) ? 0 : 1;
  if (o.history > 0) {
    run_request_bench(o.history, o.message_bytes, o.text, o.seconds, o.reps);
    return 0;
  }
  report(o);
  return 0;
}
