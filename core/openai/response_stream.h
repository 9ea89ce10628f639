// A streamed response (docs/openai-compatible.md): the run's deltas and tool calls as
// OpenAI's Responses events, each written with its type as the SSE `event:` name and a
// `sequence_number` that starts at 0 and grows by one per event, as OpenAI's do.
#pragma once

#include "core/openai/responses.h"

#include <simdjson.h>

#include <nlohmann/json.hpp>

#include <functional>
#include <mutex>
#include <string>

namespace agentrt::core::openai {

class ResponseStreamSink : public RunSink {
 public:
  ResponseStreamSink(RunSink& out, ResponseHead head, std::function<bool()> client_gone);
  // A replay of a run's events (GET /v1/responses/{id}?stream=true): the run's own
  // `done` ends it, and the events through sequence_number `after` are left out; the
  // numbers are those the run's stream had, being derived from the same events.
  void replay_after(int64_t after) {
    replay_ = true;
    skip_through_ = after;
  }

  bool send(const std::string& event) override;
  bool idle() override;
  bool begin() override { return true; }  // the head goes with the first event

  // Whether any event went out: before that the call can still fail as HTTP does.
  bool started() const;
  // Closes the open message, then response.completed, .incomplete or .failed.
  void finish(const RunSummary& summary);

 private:
  bool emit(const std::string& type, nlohmann::json event);
  bool start();
  bool open_message();
  bool close_message();
  bool add_call(const ToolCall& call);
  void end(const RunSummary& summary);
  bool note_end(simdjson::dom::element event, std::string_view type);

  RunSink& out_;
  const ResponseHead head_;
  std::function<bool()> client_gone_;
  mutable std::mutex mutex_;  // the provider's thread sends; the run's asks idle()
  bool started_ = false;
  bool gone_ = false;
  int64_t sequence_ = 0;
  int64_t items_ = 0;  // output items added: the next one's output_index
  bool message_open_ = false;
  int64_t message_index_ = 0;
  std::string text_;  // the open message's text so far
  bool replay_ = false;
  int64_t skip_through_ = -1;
  RunSummary seen_;  // what a replay learns of the run's end from its events
};

}  // namespace agentrt::core::openai
