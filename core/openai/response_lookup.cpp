#include "core/openai/response_lookup.h"

#include "core/domain/errors.h"
#include "core/openai/openai_fields.h"
#include "core/openai/response_stream.h"
#include "core/openai/responses.h"

#include <ctime>
#include <iomanip>
#include <sstream>

namespace agentrt::core::openai {
namespace {

struct Found {
  RunRecord run;
  ResponseHead head;
};

int64_t unix_of(const std::string& iso) {
  std::tm tm{};
  std::istringstream in(iso);
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
  return in.fail() ? 0 : static_cast<int64_t>(timegm(&tm));
}

Found find(RunService& runs, const std::string& cell, const Principal& who, const std::string& id) {
  const std::optional<std::string> run_id = run_of_response(id);
  try {
    if (!run_id) throw not_found("no such response");
    Found found{runs.visible_run(cell, who, *run_id), {}};
    found.head.id = id;
    found.head.model = found.run.model;
    found.head.created_at = unix_of(found.run.started_at);
    return found;
  } catch (const DomainError&) {
    throw not_found("Response with id '" + id + "' not found.");
  }
}

// Keeps the last event a replay writes: the terminal one holds the response.
class LastEvent : public RunSink {
 public:
  bool send(const std::string& event) override {
    last = event;
    return true;
  }
  std::string last;
};

}  // namespace

std::string stored_response(RunService& runs, const std::string& cell, const Principal& who,
                            const std::string& id) {
  Found found = find(runs, cell, who, id);
  if (found.run.status == "running") {
    nlohmann::json object = response_object(found.head, RunSummary{});
    object["status"] = "in_progress";
    object["output"] = nlohmann::json::array();
    object["usage"] = nullptr;
    return object.dump();
  }
  LastEvent last;
  ResponseStreamSink sink(last, found.head, {});
  sink.replay_after(-1);
  runs.follow(cell, who, found.run.id, 0, sink, std::chrono::milliseconds(1000));
  const nlohmann::json event = nlohmann::json::parse(last.last, nullptr, false);
  if (!event.is_object() || !event.contains("response"))
    throw DomainError(ErrorKind::internal, "response '" + id + "' has no end");
  return event["response"].dump();
}

void replay_response(RunService& runs, const std::string& cell, const Principal& who,
                     const std::string& id, int64_t after, RunSink& out,
                     std::chrono::milliseconds idle) {
  Found found = find(runs, cell, who, id);
  ResponseStreamSink sink(out, found.head, {});
  sink.replay_after(after);
  runs.follow(cell, who, found.run.id, 0, sink, idle);
}

std::string cancel_response(RunService& runs, const std::string& cell, const Principal& who,
                            const std::string& id) {
  Found found = find(runs, cell, who, id);
  if (found.run.status != "running")
    throw bad_param("response_id",
                    "Cannot cancel a response that is not in progress (its "
                    "status is " +
                        found.run.status + ").");
  runs.interrupt(cell, who, found.run.session_id);
  return stored_response(runs, cell, who, id);
}

}  // namespace agentrt::core::openai
