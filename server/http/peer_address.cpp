#include "server/http/peer_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace agentrt::server {

std::string peer_address(int socket) {
  if (socket < 0) return "";
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getpeername(socket, reinterpret_cast<sockaddr*>(&address), &length) != 0) return "";
  char text[INET6_ADDRSTRLEN] = {};
  const void* ip = nullptr;
  if (address.ss_family == AF_INET)
    ip = &reinterpret_cast<const sockaddr_in*>(&address)->sin_addr;
  else if (address.ss_family == AF_INET6)
    ip = &reinterpret_cast<const sockaddr_in6*>(&address)->sin6_addr;
  if (ip == nullptr || ::inet_ntop(address.ss_family, ip, text, sizeof text) == nullptr) return "";
  return text;
}

}  // namespace agentrt::server
