// Cryptographically secure random bytes from the kernel.
#pragma once

#include <cstddef>

namespace agentrt::auth_token {

// Fills `out` with `len` bytes from getrandom(2); throws agentrt::sdk::Error
// (AGENTRT_ERR_INTERNAL) if the kernel cannot supply them.
void random_bytes(void* out, size_t len);

}  // namespace agentrt::auth_token
