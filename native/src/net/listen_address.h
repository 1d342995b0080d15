// Where a native server listens: a host (an IP address as is, a name through the resolver, as
// node's listen() does) and a port, and the error JS sees when it cannot ("EADDRINUSE", ...).
// Shared by the native front ends (http/http_server.cc, grpc/grpc_server.cc).
#pragma once

#include <netdb.h>
#include <sys/socket.h>
#include <uv.h>

#include <cstring>
#include <string>

namespace gebe {

// A libuv error with its name kept for JS.
struct ListenError {
  std::string code;
  std::string message;
};

inline ListenError MakeListenError(int uv_code, const std::string& what) {
  return ListenError{uv_err_name(uv_code), what + ": " + uv_strerror(uv_code)};
}

inline sockaddr_storage ResolveListenAddress(const std::string& host, int port) {
  sockaddr_storage addr{};
  if (uv_ip4_addr(host.c_str(), port, reinterpret_cast<sockaddr_in*>(&addr)) == 0) return addr;
  if (uv_ip6_addr(host.c_str(), port, reinterpret_cast<sockaddr_in6*>(&addr)) == 0) return addr;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0 || found == nullptr) {
    throw ListenError{"ENOTFOUND", "getaddrinfo ENOTFOUND " + host + (rc != 0 ? std::string(": ") + gai_strerror(rc) : "")};
  }
  std::memcpy(&addr, found->ai_addr, found->ai_addrlen);
  freeaddrinfo(found);
  if (addr.ss_family == AF_INET6) reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port = htons(uint16_t(port));
  else reinterpret_cast<sockaddr_in*>(&addr)->sin_port = htons(uint16_t(port));
  return addr;
}

// The port a bound TCP handle got.
inline int BoundPort(const uv_tcp_t* handle) {
  sockaddr_storage bound{};
  int len = sizeof(bound);
  uv_tcp_getsockname(handle, reinterpret_cast<sockaddr*>(&bound), &len);
  return bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                     : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
}

}  // namespace gebe
