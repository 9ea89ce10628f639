// A text kept in the form it takes between the quotes of a JSON string, escaped exactly
// as JsonWriter escapes it (nlohmann's dump()), so a vendor's request takes it as is.
//
// Why: the texts are most of a request's bytes, and the plugin read each one back out of
// the engine's JSON only to escape it again for the vendor's. On a request of 580
// messages of prose that was more than half of the plugin's reading and writing
// (bench/README.md, session 18). The engine escapes as JsonWriter does, so its texts
// pass through whole; anything escaped otherwise (`\/`, `\u00e9`, upper-case hex) is
// decoded and escaped again when read, so that a text has one form and two texts are
// equal when their forms are.
#pragma once

#include <string>
#include <string_view>

namespace agentrt::providers {

class EscapedText {
 public:
  EscapedText() = default;
  // Borrows `escaped`, which must already be in the form above and outlive this value
  // and every copy of it.
  static EscapedText borrowed(std::string_view escaped);
  // Escapes `text` into storage of its own. Throws nlohmann's type_error for text
  // that is not UTF-8, as dump() does.
  static EscapedText of(std::string_view text);
  // Takes `escaped` (in the form above) as its own storage.
  static EscapedText owning(std::string escaped);

  // Makes this borrow `escaped`, as borrowed() would, in place: a long request's reader
  // does this once a message, and a value built and moved in cost 40 instructions more.
  void borrow(std::string_view escaped) {
    owned_ = false;
    view_ = escaped;
    storage_.clear();
  }

  // The escaped form, without quotes.
  std::string_view json() const { return owned_ ? std::string_view(storage_) : view_; }
  bool empty() const { return json().empty(); }
  // The text itself, decoded: for the rare reader that needs the characters.
  std::string text() const;

  bool operator==(const EscapedText& other) const { return json() == other.json(); }
  bool operator!=(const EscapedText& other) const { return !(*this == other); }

 private:
  // json() looks at storage_ afresh each time, so copies and moves need nothing more.
  bool owned_ = false;
  std::string_view view_;  // when borrowed
  std::string storage_;    // when owned
};

// Appends `text` escaped as above, without quotes. Throws nlohmann's type_error for text
// that is not UTF-8, leaving `out` as it was.
void append_escaped(std::string& out, std::string_view text);

}  // namespace agentrt::providers
