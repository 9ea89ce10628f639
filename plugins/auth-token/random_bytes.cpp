#include "random_bytes.h"

#include <agentrt/plugin.hpp>

#include <sys/random.h>

#include <cerrno>
#include <cstdint>

namespace agentrt::auth_token {

void random_bytes(void* out, size_t len) {
  auto* p = static_cast<uint8_t*>(out);
  while (len > 0) {
    // Flags 0: blocks only until the kernel pool is first initialised, and never
    // falls back to anything weaker than the urandom source.
    ssize_t n = getrandom(p, len, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw sdk::Error(AGENTRT_ERR_INTERNAL, "auth-token: getrandom failed");
    }
    // Reads above 256 bytes may return short; keep going until the buffer is full.
    p += n;
    len -= static_cast<size_t>(n);
  }
}

}  // namespace agentrt::auth_token
