// The keepalive bookkeeping of one connection (grpc/keepalive.h) against gRPC core's documented
// rules (grpc/doc/keepalive.md): when the server pings, when a client's ping is a strike, and
// when strikes end the connection.
#include "check.h"
#include "grpc/keepalive.h"

using namespace gebe;

namespace {

KeepaliveOptions Options() {
  KeepaliveOptions o;
  o.min_recv_ping_interval_without_data_ms = 1000;
  return o;
}

}  // namespace

TEST(keepalive_pings_only_with_calls_unless_permitted) {
  KeepaliveOptions o = Options();
  KeepaliveState busy(o);
  CHECK(!busy.ShouldPing(/*idle=*/true));
  CHECK(busy.ShouldPing(/*idle=*/false));
  o.permit_without_calls = true;
  KeepaliveState permitted(o);
  CHECK(permitted.ShouldPing(/*idle=*/true));
}

TEST(keepalive_waits_for_the_ack_and_stops_after_max_pings_without_data) {
  KeepaliveState k(Options());
  CHECK(k.ShouldPing(false));
  k.OnPingSent();
  CHECK(k.awaiting_ack());
  CHECK(!k.ShouldPing(false));  // one ping out at a time; the timer now closes the connection
  k.OnPingAcknowledged();
  CHECK(!k.awaiting_ack());
  CHECK(k.ShouldPing(false));
  k.OnPingSent();
  k.OnPingAcknowledged();
  CHECK(!k.ShouldPing(false));  // two pings and no data: gRPC core's default limit
  k.OnDataOrHeadersSent();
  CHECK(k.ShouldPing(false));

  KeepaliveOptions unlimited = Options();
  unlimited.max_pings_without_data = 0;
  KeepaliveState u(unlimited);
  for (int i = 0; i < 10; ++i) {
    CHECK(u.ShouldPing(false));
    u.OnPingSent();
    u.OnPingAcknowledged();
  }
}

TEST(keepalive_counts_pings_sooner_than_the_interval_as_strikes) {
  KeepaliveState k(Options());  // 1000 ms between pings with a call open, two strikes tolerated
  CHECK(!k.OnPingReceived(0, false));  // the first ping is never a strike
  CHECK(!k.OnPingReceived(1000, false));
  CHECK_EQ(k.strikes(), uint32_t(0));
  CHECK(!k.OnPingReceived(1500, false));
  CHECK(!k.OnPingReceived(1600, false));
  CHECK_EQ(k.strikes(), uint32_t(2));
  CHECK(k.OnPingReceived(1700, false));  // the third strike ends the connection
}

TEST(keepalive_data_sent_clears_strikes) {
  KeepaliveState k(Options());
  CHECK(!k.OnPingReceived(0, false));
  CHECK(!k.OnPingReceived(10, false));
  CHECK(!k.OnPingReceived(20, false));
  CHECK_EQ(k.strikes(), uint32_t(2));
  k.OnDataOrHeadersSent();
  CHECK_EQ(k.strikes(), uint32_t(0));
  CHECK(!k.OnPingReceived(30, false));  // first ping since the data: not a strike
  CHECK_EQ(k.strikes(), uint32_t(0));
}

TEST(keepalive_idle_connections_may_ping_every_two_hours_unless_permitted) {
  KeepaliveState k(Options());
  CHECK(!k.OnPingReceived(0, true));
  CHECK(!k.OnPingReceived(5000, true));  // 5 s apart with no call: a strike (2 h applies)
  CHECK_EQ(k.strikes(), uint32_t(1));
  CHECK(!k.OnPingReceived(5000 + KeepaliveState::kIdlePingIntervalMs, true));
  CHECK_EQ(k.strikes(), uint32_t(1));

  KeepaliveOptions o = Options();
  o.permit_without_calls = true;
  KeepaliveState permitted(o);
  CHECK(!permitted.OnPingReceived(0, true));
  CHECK(!permitted.OnPingReceived(5000, true));
  CHECK_EQ(permitted.strikes(), uint32_t(0));
}

TEST(keepalive_zero_strikes_tolerates_any_number) {
  KeepaliveOptions o = Options();
  o.max_ping_strikes = 0;
  KeepaliveState k(o);
  for (uint64_t t = 0; t < 100; ++t) CHECK(!k.OnPingReceived(t, false));
  CHECK_EQ(k.strikes(), uint32_t(99));
}
