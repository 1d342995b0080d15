// Several loop threads listening on one port (--http-thread-count): each binds its own socket
// with SO_REUSEPORT and Linux spreads incoming connections across them by a hash of the
// connection's addresses. libuv 1.46 (node 20's) has no UV_TCP_REUSEPORT flag, so the option is
// set on the handle's socket before uv_tcp_bind (which adds SO_REUSEADDR as for any listener).
//
// SO_REUSEPORT also lets any other socket of the same user that sets it bind the port. A lone
// listener never sets it, so another server on the port is refused as ever (EADDRINUSE); the
// first of several checks the port first with a plain bind, so that a second gebe started on the
// same port with several loops is refused too instead of silently splitting its traffic.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#include <cerrno>
#include <string>

#include "net/listen_address.h"

namespace gebe {

// How a loop's listener binds: alone (a plain listener), or as one of several loops of a server
// on one port: the first (which checks the port first) or a later one (binds the first's port).
enum class PortSharing { kAlone, kFirst, kLater };

// Before uv_tcp_bind: `handle` (made with uv_tcp_init_ex, so its socket exists) may share its port.
inline int AllowSharedPort(uv_tcp_t* handle) {
  uv_os_fd_t fd;
  int rc = uv_fileno(reinterpret_cast<const uv_handle_t*>(handle), &fd);
  if (rc != 0) return rc;
  const int on = 1;
  return setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on)) == 0 ? 0 : uv_translate_sys_error(errno);
}

// Throws ListenError (EADDRINUSE, ...) when a plain listener could not bind `addr` now, as libuv
// binds it (SO_REUSEADDR; an IPv6 address takes IPv4 too). The socket is closed again at once.
inline void CheckPortFree(const sockaddr_storage& addr, const std::string& what) {
  const int fd = socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw MakeListenError(uv_translate_sys_error(errno), what);
  const int on = 1, off = 0;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
  if (addr.ss_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
  const socklen_t length = addr.ss_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
  const int rc = bind(fd, reinterpret_cast<const sockaddr*>(&addr), length) == 0 ? 0 : uv_translate_sys_error(errno);
  close(fd);
  if (rc != 0) throw MakeListenError(rc, what);
}

}  // namespace gebe
