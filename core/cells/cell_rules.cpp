#include "core/cells/cell_rules.h"

#include <cstdlib>
#include <fstream>
#include <regex>

namespace agentrt::core {

bool valid_cell_id(const std::string& id) {
  static const std::regex pattern("[a-z0-9][a-z0-9_-]{0,62}");
  return std::regex_match(id, pattern);
}

bool valid_timezone(const std::string& name) {
  static const std::regex pattern("[A-Za-z0-9_+-]+(/[A-Za-z0-9_+-]+)*");
  if (name.size() > 128 || !std::regex_match(name, pattern)) return false;
  // Files of the zone directory that are not IANA zone names: Debian's copies of every
  // zone in two other forms, the POSIX rule template, the "Factory" placeholder and
  // the host's own zone.
  const std::string first = name.substr(0, name.find('/'));
  if (first == "posix" || first == "right" || name == "posixrules" || name == "Factory" ||
      name == "localtime")
    return false;
  const char* tzdir = std::getenv("TZDIR");
  std::string path = std::string(tzdir && *tzdir ? tzdir : "/usr/share/zoneinfo") + "/" + name;
  std::ifstream file(path, std::ios::binary);
  char magic[4] = {};
  return file.read(magic, sizeof magic) && std::string(magic, 4) == "TZif";
}

// RFC 5646's well-formed tag: a langtag, or a private-use tag alone. The grandfathered
// tags (i-klingon and the like) are not taken: each has a modern form.
bool valid_locale(const std::string& tag) {
  static const std::regex pattern(
      "(([A-Za-z]{2,3}(-[A-Za-z]{3}){0,3}|[A-Za-z]{4,8})"  // language [extlang]
      "(-[A-Za-z]{4})?"                                    // script
      "(-([A-Za-z]{2}|[0-9]{3}))?"                         // region
      "(-([A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*"         // variants
      "(-[0-9A-WYZa-wyz](-[A-Za-z0-9]{2,8})+)*"            // extensions (-u-ca-...)
      "(-[xX](-[A-Za-z0-9]{1,8})+)?"                       // private use
      "|[xX](-[A-Za-z0-9]{1,8})+)");                       // private use alone
  return tag.size() <= 64 && std::regex_match(tag, pattern);
}

}  // namespace agentrt::core
