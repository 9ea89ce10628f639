// Fields that code deeper in a request adds to that request's one log line, the way a
// logging framework's mapped diagnostic context works: the run a request ran shows on
// its "request" line instead of a line of its own (one formatted line and one write()
// per /chat instead of two, and the usage next to the status and duration).
#pragma once

#include "core/log/log_fields.h"

namespace agentrt::core {

class RequestLogFields {
 public:
  // The calling thread's request line collects from now until destruction.
  RequestLogFields();
  ~RequestLogFields();
  RequestLogFields(const RequestLogFields&) = delete;
  RequestLogFields& operator=(const RequestLogFields&) = delete;

  LogFields& fields() { return fields_; }

  // The calling thread's request line, to set fields on directly; null when the thread
  // serves no request.
  static LogFields* current();

 private:
  LogFields fields_;
  RequestLogFields* previous_;
};

}  // namespace agentrt::core
