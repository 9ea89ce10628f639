// The kernel's own times of a TCP socket's traffic (SO_TIMESTAMPING, software stamps,
// CLOCK_REALTIME in ns): when a segment was received, and when the last byte of a send
// left. They time the wire itself, so a loop gap read from them holds none of the
// upstream's own scheduling, which on a busy two-core host can be as long as the gap.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace loop_bench {

// Asks for receive stamps on every socket of the host from now on (the listener's
// setting, which its accepted sockets inherit); exits the process when refused.
void stamp_receives(int listener);

// Asks for a transmit stamp of the last byte of each send on an accepted socket, the
// bytes counted from the first byte it sends.
void stamp_sends(int fd);

// recv() that also gives the receive stamp of the last segment it read (0 if none).
ssize_t recv_stamped(int fd, char* buf, size_t size, int64_t* stamp);

// The transmit stamp of the byte at `offset`, waiting at most a second for it; 0 when
// it did not come. Stamps of earlier sends are read and dropped on the way.
int64_t sent_stamp(int fd, uint64_t offset);

}  // namespace loop_bench
