// Every secret the API tests hand agentd, kept for the whole test binary, so that each
// agentd's log and each body it answers can be searched for them: tokens issued, the
// first admin token, and the `inline`, `env` and `file` secrets named in request bodies
// and config files. A secret agentd lets out fails the test that saw it.
#pragma once

#include "tests/api/agentd_process.h"

#include <nlohmann/json.hpp>

#include <string>

namespace agentrt::test {

// Remembers `secret` (too short a text, which any log could hold by chance, is ignored).
void remember_secret(const std::string& secret);

// Remembers the secrets `document` names: each {"source","value"} reference, an env one
// read from `env` (then from the test's own environment), a file one from the file.
void remember_secret_refs(const nlohmann::json& document, const Environment& env);

// The first secret remembered that `text` contains; "" when none.
std::string leaked_secret(const std::string& text);

}  // namespace agentrt::test
