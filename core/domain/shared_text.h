// Immutable text that copies share instead of duplicating. A stored message's content
// is held by the history cache and copied into each run's context: on a session of 650
// messages of prose that was 300 KB and 650 allocations a run (bench/README.md).
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace agentrt::core {

class SharedText {
 public:
  SharedText() = default;
  // Implicit, as the std::string it replaced was: rows read from the store convert.
  SharedText(std::string text)
      : text_(text.empty() ? nullptr : std::make_shared<const std::string>(std::move(text))) {}

  const std::string& str() const { return text_ ? *text_ : empty_text(); }
  operator std::string_view() const { return str(); }
  bool empty() const { return !text_; }
  size_t size() const { return text_ ? text_->size() : 0; }

  friend bool operator==(const SharedText& a, const SharedText& b) { return a.str() == b.str(); }
  friend bool operator!=(const SharedText& a, const SharedText& b) { return !(a == b); }
  friend std::ostream& operator<<(std::ostream& out, const SharedText& text) {
    return out << text.str();
  }

 private:
  static const std::string& empty_text() {
    static const std::string empty;
    return empty;
  }
  std::shared_ptr<const std::string> text_;
};

}  // namespace agentrt::core
