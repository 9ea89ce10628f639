#include "server/http/request_context.h"

#include "server/http/request_head.h"
#include "server/http/router.h"

#include <algorithm>
#include <stdexcept>

namespace agentrt::server {

std::string_view RequestContext::authorization() const {
  return head != nullptr ? field_text(head->authorization) : std::string_view();
}

std::string_view RequestContext::content_type() const {
  return head != nullptr ? field_text(head->content_type) : std::string_view();
}

std::optional<std::string> RequestContext::last_event_id() const {
  if (head == nullptr || head->last_event_id == nullptr) return std::nullopt;
  return *head->last_event_id;
}

const std::string& RequestContext::param(const std::string& name) const {
  const auto it = params.find(name);
  if (it == params.end()) throw std::logic_error("route has no path parameter '" + name + "'");
  return it->second;
}

std::optional<std::string> RequestContext::query_param(const std::string& name) const {
  if (route != nullptr && std::find(route->spec.query.begin(), route->spec.query.end(), name) ==
                              route->spec.query.end())
    throw std::logic_error("route takes no query parameter '" + name + "'");
  for (const auto& [key, value] : query) {
    if (key == name) return value;
  }
  return std::nullopt;
}

}  // namespace agentrt::server
