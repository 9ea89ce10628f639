#include "core/log/request_log.h"

namespace agentrt::core {
namespace {

thread_local RequestLogFields* t_current = nullptr;

}  // namespace

RequestLogFields::RequestLogFields() : previous_(t_current) {
  t_current = this;
}

RequestLogFields::~RequestLogFields() {
  t_current = previous_;
}

LogFields* RequestLogFields::current() {
  return t_current == nullptr ? nullptr : &t_current->fields_;
}

}  // namespace agentrt::core
