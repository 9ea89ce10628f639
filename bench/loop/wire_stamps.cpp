#include "wire_stamps.h"

#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace loop_bench {
namespace {

constexpr unsigned kReceive = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
constexpr unsigned kSend =
    kReceive | SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_OPT_ID | SOF_TIMESTAMPING_OPT_TSONLY;

void set_flags(int fd, unsigned flags) {
  if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof flags) != 0) {
    std::fprintf(stderr, "loop_bench: SO_TIMESTAMPING refused: %s\n", std::strerror(errno));
    std::exit(1);
  }
}

int64_t ns(const timespec& t) {
  return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
}

// The software stamp of a message's SCM_TIMESTAMPING, 0 when it has none.
int64_t stamp_of(msghdr& msg, sock_extended_err* err) {
  int64_t stamp = 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING) {
      scm_timestamping ts;
      std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
      stamp = ns(ts.ts[0]);
    } else if (err && c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) {
      std::memcpy(err, CMSG_DATA(c), sizeof *err);
    }
  }
  return stamp;
}

}  // namespace

void stamp_receives(int listener) {
  set_flags(listener, kReceive);
}

void stamp_sends(int fd) {
  set_flags(fd, kSend);
}

ssize_t recv_stamped(int fd, char* buf, size_t size, int64_t* stamp) {
  iovec iov{buf, size};
  alignas(cmsghdr) char control[256];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  const ssize_t got = recvmsg(fd, &msg, 0);
  *stamp = got > 0 ? stamp_of(msg, nullptr) : 0;
  return got;
}

int64_t sent_stamp(int fd, uint64_t offset) {
  // The kernel numbers a TCP socket's bytes in 32 bits from where stamping began.
  const uint32_t id = static_cast<uint32_t>(offset);
  for (;;) {
    char data[64];
    iovec iov{data, sizeof data};
    alignas(cmsghdr) char control[256];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return 0;
      // A stamp queued on the error queue reads as POLLERR.
      pollfd p{fd, 0, 0};
      if (poll(&p, 1, 1000) <= 0 || !(p.revents & POLLERR)) return 0;
      continue;
    }
    sock_extended_err err{};
    const int64_t stamp = stamp_of(msg, &err);
    if (err.ee_origin == SO_EE_ORIGIN_TIMESTAMPING && err.ee_data == id) return stamp;
  }
}

}  // namespace loop_bench
