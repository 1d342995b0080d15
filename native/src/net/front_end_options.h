// The options both native front ends (HTTP and gRPC) take: where to listen and the limits that
// keep a client from exhausting the server. Each server adds its protocol's own.
#pragma once

#include <cstdint>
#include <string>

namespace gebe {

struct FrontEndOptions {
  std::string host = "127.0.0.1";
  int port = 0;
  // The largest request body (HTTP) or message (gRPC): --http-max-body.
  uint64_t max_request_bytes = 64ull << 20;
  // Request bytes held by all requests together, received or being answered; past it a request
  // is answered busy_message (503 / UNAVAILABLE). Buffers grow as bytes arrive, never to a declared size.
  uint64_t max_inflight_bytes = 1ull << 30;
  // Open client connections; what happens to one more is the protocol's (see each server).
  size_t max_connections = 4096;
  // After taking a request or writing answers, the loop busy-polls this long before it sleeps
  // (--busy-poll-us; 0: sleeps at once). See LoopThread::KeepPolling.
  uint64_t busy_poll_us = 0;
  // Answer bytes one connection may hold while its client does not read them (a streamed answer's
  // parts, a gRPC stream's responses): twice --http-max-body. Past it the request is cancelled (gRPC:
  // the call ends RESOURCE_EXHAUSTED; HTTP: the connection closes). One answer alone always goes.
  uint64_t max_unsent_bytes = 128ull << 20;
  // Whether `adding` more bytes to the `waiting` ones passes that bound (src/core/server/limits.ts's
  // passesUnsentBound, for the TLS front ends, is the same rule).
  bool PassesUnsentBound(uint64_t waiting, uint64_t adding) const { return waiting > 0 && waiting + adding > max_unsent_bytes; }
  // The wording of the busy answer: src/core/server/limits.ts's, which the bindings require.
  std::string busy_message;
};

}  // namespace gebe
