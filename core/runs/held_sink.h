// A run's sink that holds its events back until the run's start is stored. A stream's
// start is written while its provider call is already under way (run_service.h), so
// the upstream's first answer no longer waits for that commit; but nobody may learn the
// run's id, or see any of its events, before the run can be looked up. Events sent
// meanwhile, from the caller's thread or the provider's, are kept in order and go out
// when the run opens the sink.
#pragma once

#include "core/runs/run_service.h"

#include <mutex>
#include <string>
#include <vector>

namespace agentrt::core {

class HeldSink : public RunSink {
 public:
  explicit HeldSink(RunSink& receiver) : receiver_(receiver) {}

  // Held: kept, and true. Open: the receiver's answer.
  bool send(const std::string& event) override;
  // Held: true, and nothing sent (no keep-alive may precede the first event).
  bool idle() override;
  // Sends what was held, in order; later events go straight to the receiver.
  void open();
  bool is_open() const;

 private:
  RunSink& receiver_;
  mutable std::mutex mutex_;  // orders the events of both threads around open()
  bool open_ = false;
  bool gone_ = false;  // the receiver refused what was held
  std::vector<std::string> held_;
};

}  // namespace agentrt::core
