#include "server/http/router.h"

#include "core/domain/json_text.h"
#include "server/http/api_error.h"
#include "server/http/uri.h"
#include "text/utf8.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace agentrt::server {

namespace {

struct Segment {
  bool is_param = false;
  std::string text;  // the literal, or the parameter's name
};

bool is_param_name(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::vector<std::string_view> split_segments(std::string_view path) {
  std::vector<std::string_view> segments;
  path.remove_prefix(1);  // callers guarantee the leading '/'
  for (;;) {
    const std::size_t slash = path.find('/');
    segments.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) return segments;
    path.remove_prefix(slash + 1);
  }
}

std::vector<Segment> parse_template(const std::string& path) {
  if (path.size() < 2 || path[0] != '/')
    throw std::invalid_argument("route template '" + path +
                                "' must start with '/' and name a path");
  std::vector<Segment> segments;
  for (std::string_view raw : split_segments(path)) {
    if (raw.empty())
      throw std::invalid_argument("route template '" + path + "' has an empty segment");
    if (raw.front() == '{' && raw.back() == '}') {
      const std::string_view name = raw.substr(1, raw.size() - 2);
      if (!is_param_name(name))
        throw std::invalid_argument("route template '" + path + "' has a bad parameter name");
      for (const Segment& s : segments) {
        if (s.is_param && s.text == name)
          throw std::invalid_argument("route template '" + path + "' repeats a parameter");
      }
      segments.push_back({true, std::string(name)});
    } else if (raw.find_first_of("{}%") != std::string_view::npos) {
      throw std::invalid_argument("route template '" + path + "' has a malformed segment");
    } else {
      segments.push_back({false, std::string(raw)});
    }
  }
  return segments;
}

std::string shape_of(const std::vector<Segment>& segments) {
  std::string shape;
  for (const Segment& s : segments) shape += s.is_param ? "/{}" : "/" + s.text;
  return shape;
}

std::string template_of(const std::vector<Segment>& segments) {
  std::string path;
  for (const Segment& s : segments) path += s.is_param ? "/{" + s.text + "}" : "/" + s.text;
  return path;
}

}  // namespace

struct Router::Pattern {
  std::vector<Segment> segments;
  std::string shape;
  std::vector<std::unique_ptr<Route>> routes;

  bool matches(const std::vector<std::string>& decoded) const {
    if (decoded.size() != segments.size()) return false;
    for (std::size_t i = 0; i < segments.size(); ++i) {
      if (decoded[i].empty()) return false;
      if (!segments[i].is_param && segments[i].text != decoded[i]) return false;
    }
    return true;
  }

  // Literal beats parameter at the first segment where the two differ.
  bool more_specific_than(const Pattern& other) const {
    for (std::size_t i = 0; i < segments.size(); ++i) {
      if (segments[i].is_param != other.segments[i].is_param) return !segments[i].is_param;
    }
    return false;
  }
};

bool RouteInfo::operator<(const RouteInfo& other) const {
  return std::tie(path, method) < std::tie(other.path, other.method);
}
bool RouteInfo::operator==(const RouteInfo& other) const {
  return path == other.path && method == other.method;
}

Router::Router(core::CellMode mode) : mode_(mode) {}
Router::~Router() = default;

void Router::add(RouteSpec spec) {
  if (spec.method.empty() || !spec.handler)
    throw std::invalid_argument("route " + spec.path + " needs a method and a handler");
  std::vector<Segment> segments = parse_template(spec.path);
  if (spec.scope == RouteScope::cell) {
    for (const Segment& s : segments) {
      if (s.is_param && s.text == kCellParam)
        throw std::invalid_argument("cell route '" + spec.path + "' may not use {cellID} itself");
    }
    if (mode_ == core::CellMode::multi) {
      segments.insert(segments.begin(), {Segment{false, "cells"}, Segment{true, kCellParam}});
    }
  }
  const std::string shape = shape_of(segments);
  auto same_shape = std::find_if(patterns_.begin(), patterns_.end(),
                                 [&](const auto& p) { return p->shape == shape; });
  if (same_shape == patterns_.end()) {
    auto pattern = std::make_unique<Pattern>();
    pattern->segments = segments;
    pattern->shape = shape;
    patterns_.push_back(std::move(pattern));
    same_shape = std::prev(patterns_.end());
  }
  Pattern& pattern = **same_shape;
  const std::string mounted = template_of(segments);
  if (template_of(pattern.segments) != mounted)
    throw std::invalid_argument("route template '" + mounted + "' names its parameters unlike '" +
                                template_of(pattern.segments) + "'");
  for (const auto& route : pattern.routes) {
    if (route->spec.method == spec.method)
      throw std::invalid_argument("route " + spec.method + " " + mounted + " registered twice");
  }
  pattern.routes.push_back(std::make_unique<Route>(Route{std::move(spec), mounted}));
}

RouteMatch Router::match(std::string_view method, std::string_view raw_path) const {
  RouteMatch result;
  if (raw_path.empty() || raw_path.front() != '/') return result;
  std::vector<std::string> decoded;
  for (std::string_view raw : split_segments(raw_path)) {
    auto segment = percent_decode(raw, false);
    if (!segment) throw ApiError(ErrorCode::invalid_request, "malformed percent-escape in path");
    // No id has one, and a NUL in a message ended it where it stood (what() is a C string).
    if (std::any_of(segment->begin(), segment->end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; }))
      throw ApiError(ErrorCode::invalid_request, "the path holds a control character");
    // Ids go to plugins as JSON, which has no way to carry other bytes.
    if (!text::is_utf8(*segment))
      throw ApiError(ErrorCode::invalid_request, "the path is not UTF-8 once percent-decoded");
    decoded.push_back(std::move(*segment));
  }
  const Pattern* best = nullptr;
  for (const auto& pattern : patterns_) {
    if (pattern->matches(decoded) && (best == nullptr || pattern->more_specific_than(*best)))
      best = pattern.get();
  }
  if (best == nullptr) return result;
  for (const auto& route : best->routes) {
    if (route->spec.method == method) result.route = route.get();
    result.allowed.push_back(route->spec.method);
  }
  std::sort(result.allowed.begin(), result.allowed.end());
  if (result.route == nullptr) {
    result.outcome = RouteMatch::Outcome::method_not_allowed;
    return result;
  }
  result.outcome = RouteMatch::Outcome::found;
  for (std::size_t i = 0; i < best->segments.size(); ++i) {
    if (best->segments[i].is_param) result.params[best->segments[i].text] = std::move(decoded[i]);
  }
  if (result.route->spec.scope == RouteScope::cell) {
    result.cell = mode_ == core::CellMode::multi ? result.params[kCellParam] : kDefaultCell;
  }
  return result;
}

std::optional<std::string> query_problem(const RouteSpec& spec, const QueryParams& query) {
  constexpr size_t kShownBytes = 64;
  for (auto it = query.begin(); it != query.end(); ++it) {
    const std::string& name = it->first;
    if (std::find(spec.query.begin(), spec.query.end(), name) == spec.query.end()) {
      std::string takes;
      for (const std::string& taken : spec.query) takes += (takes.empty() ? "" : ", ") + taken;
      return "unknown query parameter " + core::json_excerpt(name, kShownBytes) +
             " (this route takes " + (takes.empty() ? "none" : takes) + ")";
    }
    const auto same_name = [&](const auto& param) { return param.first == name; };
    if (std::find_if(query.begin(), it, same_name) != it)
      return "query parameter \"" + name + "\" is given twice";
  }
  return std::nullopt;
}

void Router::add_error_body(const std::string& prefix, RouteScope scope, ErrorBody body) {
  ErrorFamily family{{}, std::move(body)};
  if (scope == RouteScope::cell && mode_ == core::CellMode::multi) family.prefix = {"cells", ""};
  for (const Segment& segment : parse_template(prefix)) {
    if (segment.is_param)
      throw std::invalid_argument("error prefix '" + prefix + "' has a parameter");
    family.prefix.push_back(segment.text);
  }
  error_families_.push_back(std::move(family));
}

const ErrorBody* Router::error_body_for(std::string_view raw_path) const {
  if (raw_path.empty() || raw_path.front() != '/') return nullptr;
  const std::vector<std::string_view> segments = split_segments(raw_path);
  for (const ErrorFamily& family : error_families_) {
    if (segments.size() < family.prefix.size()) continue;
    bool under = true;
    for (std::size_t i = 0; i < family.prefix.size() && under; ++i)
      under = family.prefix[i].empty() ? !segments[i].empty() : segments[i] == family.prefix[i];
    if (under) return &family.body;
  }
  return nullptr;
}

std::vector<RouteInfo> Router::routes() const {
  std::vector<RouteInfo> all;
  for (const auto& pattern : patterns_) {
    for (const auto& route : pattern->routes)
      all.push_back({route->spec.method, route->mounted_path, route->spec.query});
  }
  std::sort(all.begin(), all.end());
  return all;
}

}  // namespace agentrt::server
