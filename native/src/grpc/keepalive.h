// gRPC keepalive on one connection, as gRPC core's server does it (grpc/doc/keepalive.md; Triton
// exposes the same knobs as --grpc-keepalive-* and --grpc-http2-*): the server pings a connection
// every `time_ms` and closes it when a ping is not acknowledged within `timeout_ms`; it tolerates
// at most `max_ping_strikes` pings from the client that come sooner than the policy allows, then
// sends GOAWAY ENHANCE_YOUR_CALM "too_many_pings". Pure bookkeeping, times in ms from any
// monotonic clock: the connection owns the timer and the frames (grpc_connection.cc), and this
// is unit-tested on its own (native/test/grpc).
#pragma once

#include <cstdint>

namespace gebe {

struct KeepaliveOptions {
  // GRPC_ARG_KEEPALIVE_TIME_MS: how long after the last ping's acknowledgement (or the connection's
  // start) the next ping goes out.
  uint64_t time_ms = 7200000;
  // GRPC_ARG_KEEPALIVE_TIMEOUT_MS: an unacknowledged ping closes the connection after this long.
  uint64_t timeout_ms = 20000;
  // GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS: ping a connection with no call open (and let the
  // client do so at min_recv_ping_interval_without_data_ms, instead of every two hours).
  bool permit_without_calls = false;
  // GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA: pings sent while no DATA or HEADERS frame went out;
  // 0: no limit.
  uint32_t max_pings_without_data = 2;
  // GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS: while the server sends no DATA or
  // HEADERS frame, a client ping sooner than this after the previous one is a strike.
  uint64_t min_recv_ping_interval_without_data_ms = 300000;
  // GRPC_ARG_HTTP2_MAX_PING_STRIKES: strikes tolerated before GOAWAY; 0: any number.
  uint32_t max_ping_strikes = 2;
};

class KeepaliveState {
 public:
  // With no call open and permit_without_calls false, a client may ping once every two hours (gRPC
  // core's rule).
  static constexpr uint64_t kIdlePingIntervalMs = 2 * 3600 * 1000;

  explicit KeepaliveState(const KeepaliveOptions& options) : options_(options) {}

  // A PING from the client at `now_ms`; `idle`: no call is open. True when this ping makes one
  // strike too many: the connection must end with GOAWAY ENHANCE_YOUR_CALM "too_many_pings".
  bool OnPingReceived(uint64_t now_ms, bool idle) {
    const uint64_t interval = idle && !options_.permit_without_calls ? kIdlePingIntervalMs : options_.min_recv_ping_interval_without_data_ms;
    const bool too_soon = has_received_ping_ && now_ms - last_ping_received_ms_ < interval;
    has_received_ping_ = true;
    last_ping_received_ms_ = now_ms;
    if (!too_soon) return false;
    ++strikes_;
    return options_.max_ping_strikes != 0 && strikes_ > options_.max_ping_strikes;
  }

  // The server sent a DATA or HEADERS frame: the client's pings count from scratch, and the
  // server may ping again.
  void OnDataOrHeadersSent() {
    has_received_ping_ = false;
    strikes_ = 0;
    pings_without_data_ = 0;
  }

  // The keepalive timer fired: whether to send a ping now (otherwise the timer just starts again).
  bool ShouldPing(bool idle) const {
    if (awaiting_ack_) return false;
    if (idle && !options_.permit_without_calls) return false;
    return options_.max_pings_without_data == 0 || pings_without_data_ < options_.max_pings_without_data;
  }
  void OnPingSent() {
    awaiting_ack_ = true;
    ++pings_without_data_;
  }
  // The client acknowledged the server's ping.
  void OnPingAcknowledged() { awaiting_ack_ = false; }
  // A ping is out and not acknowledged: when the timer fires now, the connection is closed.
  bool awaiting_ack() const { return awaiting_ack_; }
  uint32_t strikes() const { return strikes_; }

 private:
  KeepaliveOptions options_;
  bool has_received_ping_ = false;
  uint64_t last_ping_received_ms_ = 0;
  uint32_t strikes_ = 0;
  uint32_t pings_without_data_ = 0;
  bool awaiting_ack_ = false;
};

}  // namespace gebe
