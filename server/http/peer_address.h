// The address of a connection's client, for the audit log: asked of the socket only when
// an entry is made, never for every request.
#pragma once

#include <string>

namespace agentrt::server {

// The IP address (without the port) of the peer of `socket`; "" when it has none.
std::string peer_address(int socket);

}  // namespace agentrt::server
