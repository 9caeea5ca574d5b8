// The DoS defences' decisions (proto::DosGuard, tor's dos.c) and their
// parameters (torrc over consensus over tor's defaults), in virtual time.
#include <catch2/catch.hpp>

#include "conflux/proto/dos_guard.hpp"

using namespace conflux;
using proto::DosGuard;

namespace {

const proto::DosAddress kA = proto::dos_address_v4({192, 0, 2, 1});
const proto::DosAddress kB = proto::dos_address_v4({192, 0, 2, 2});

proto::DosParams cc_on() {
  proto::DosParams p;
  p.cc_enabled = true;
  p.cc_rate = 3;
  p.cc_burst = 10;
  p.cc_min_connections = 2;
  p.cc_defense_time_period = 100;
  return p;
}

}  // namespace

TEST_CASE("dos params: tor's defaults, then the consensus, then the torrc", "[dos]") {
  const auto def = proto::dos_params_from({}, {});
  CHECK_FALSE(def.cc_enabled);
  CHECK(def.cc_min_connections == 3);
  CHECK(def.cc_rate == 3);
  CHECK(def.cc_burst == 90);
  CHECK(def.cc_defense == proto::DosCircuitDefense::RefuseCell);
  CHECK(def.cc_defense_time_period == 3600);
  CHECK_FALSE(def.conn_enabled);
  CHECK(def.conn_max_concurrent == 100);
  CHECK(def.conn_defense == proto::DosConnDefense::Close);
  CHECK(def.conn_connect_rate == 20);
  CHECK(def.conn_connect_burst == 40);
  CHECK(def.conn_connect_defense_time_period == 86400);
  CHECK_FALSE(def.stream_enabled);
  CHECK(def.stream_rate == 100);
  CHECK(def.stream_burst == 300);
  CHECK(def.stream_defense == proto::DosStreamDefense::Refuse);
  CHECK(def.num_circ_max_outq == 3);

  const std::map<std::string, std::int32_t> ns{{"DoSCircuitCreationEnabled", 1},
                                               {"DoSCircuitCreationBurst", 0},  // below 1: clamped
                                               {"DoSConnectionDefenseType", 7}, // above 2: clamped
                                               {"DoSConnectionConnectDefenseTimePeriod", 3},
                                               {"DoSStreamCreationRate", 5}};
  const auto from_ns = proto::dos_params_from({}, ns);
  CHECK(from_ns.cc_enabled);
  CHECK(from_ns.cc_burst == 1);
  CHECK(from_ns.conn_defense == proto::DosConnDefense::Close);
  CHECK(from_ns.conn_connect_defense_time_period == 10);
  CHECK(from_ns.stream_rate == 5);

  proto::DosOptions torrc;
  torrc.cc_enabled = false;
  torrc.stream_rate = 7;
  torrc.stream_defense_type = 3;
  const auto both = proto::dos_params_from(torrc, ns);
  CHECK_FALSE(both.cc_enabled);
  CHECK(both.stream_rate == 7);
  CHECK(both.stream_defense == proto::DosStreamDefense::CloseCircuit);
}

TEST_CASE("dos circuit creation: an address is marked when its bucket is empty with enough connections", "[dos]") {
  DosGuard g(cc_on());
  const std::uint64_t t = 1000;
  REQUIRE(g.client_connection_opened(kA, t));
  // One connection is below MinConnections: an empty bucket alone marks nothing.
  for (int i = 0; i < 20; ++i) CHECK_FALSE(g.refuse_create(kA, t));
  CHECK(g.stats().marked_address == 0);
  REQUIRE(g.client_connection_opened(kA, t));
  // The bucket is empty and there are two connections now: marked.
  CHECK(g.refuse_create(kA, t));
  CHECK(g.stats().marked_address == 1);
  CHECK(g.stats().circuit_rejected == 1);
  // Another address is not affected.
  REQUIRE(g.client_connection_opened(kB, t));
  CHECK_FALSE(g.refuse_create(kB, t));
  // Marked for the period plus at least 1 s: still refused at t+100, even
  // with a refilled bucket.
  g.client_connection_closed(kA);
  CHECK(g.refuse_create(kA, t + 100));
  // After the mark: refilled at 3/s, allowed again.
  CHECK_FALSE(g.refuse_create(kA, t + 102));
  CHECK(g.stats().circuit_rejected == 2);
}

TEST_CASE("dos circuit creation: the bucket refills at the rate up to the burst", "[dos]") {
  auto p = cc_on();
  p.cc_min_connections = 1;
  DosGuard g(p);
  REQUIRE(g.client_connection_opened(kA, 50));
  for (int i = 0; i < 9; ++i) CHECK_FALSE(g.refuse_create(kA, 50));  // 10 - 9 = 1 left
  CHECK_FALSE(g.refuse_create(kA, 51));  // +3, -1: 3 left
  CHECK_FALSE(g.refuse_create(kA, 51));
  CHECK_FALSE(g.refuse_create(kA, 51));
  CHECK(g.refuse_create(kA, 51));  // this one takes the last token: marked
}

TEST_CASE("dos circuit creation: disabled, or defense type 1, refuses nothing", "[dos]") {
  auto p = cc_on();
  p.cc_min_connections = 1;
  p.cc_defense = proto::DosCircuitDefense::None;
  DosGuard g(p);
  REQUIRE(g.client_connection_opened(kA, 1));
  for (int i = 0; i < 50; ++i) CHECK_FALSE(g.refuse_create(kA, 1));
  CHECK(g.stats().marked_address == 1);
  CHECK(g.stats().circuit_rejected == 41);  // from the 10th, which took the last token: counted, not refused

  DosGuard off{proto::DosParams{}};
  CHECK_FALSE(off.client_connection_opened(kA, 1));  // nothing enabled: nothing tracked
  for (int i = 0; i < 200; ++i) CHECK_FALSE(off.refuse_create(kA, 1));
}

TEST_CASE("dos circuit creation: filling circuit queues marks the address", "[dos]") {
  DosGuard g(cc_on());
  REQUIRE(g.client_connection_opened(kA, 10));
  g.circuit_queue_filled(kA, 10);
  g.circuit_queue_filled(kA, 10);
  CHECK(g.stats().marked_address_maxq == 0);
  g.circuit_queue_filled(kA, 10);
  CHECK(g.stats().marked_address_maxq == 1);
  CHECK(g.refuse_create(kA, 10));
}

TEST_CASE("dos connections: more than MaxConcurrentCount at once are closed", "[dos]") {
  proto::DosParams p;
  p.conn_enabled = true;
  p.conn_max_concurrent = 3;
  p.conn_connect_burst = 1000;
  DosGuard g(p);
  for (int i = 0; i < 4; ++i) {
    CHECK(g.accept_connection(kA, 5));
    REQUIRE(g.client_connection_opened(kA, 5));
  }
  // tor compares with '>': the fourth was accepted, the fifth is not.
  CHECK_FALSE(g.accept_connection(kA, 5));
  CHECK(g.stats().concurrent_conn_rejected == 1);
  CHECK(g.accept_connection(kB, 5));
  g.client_connection_closed(kA);
  CHECK(g.accept_connection(kA, 5));
  CHECK(g.concurrent(kA) == 3);
}

TEST_CASE("dos connections: the connect rate marks an address for the defense period", "[dos]") {
  proto::DosParams p;
  p.conn_enabled = true;
  p.conn_max_concurrent = 1000;
  p.conn_connect_rate = 2;
  p.conn_connect_burst = 5;
  p.conn_connect_defense_time_period = 60;
  DosGuard g(p, 1024, [](std::uint32_t lo, std::uint32_t hi) { return hi + 0 * lo; });
  for (int i = 0; i < 5; ++i) {
    CHECK(g.accept_connection(kA, 100));
    REQUIRE(g.client_connection_opened(kA, 100));
    g.client_connection_closed(kA);
  }
  // The fifth took the last token: marked until 100 + 60 + 30.
  CHECK_FALSE(g.accept_connection(kA, 101));
  CHECK_FALSE(g.accept_connection(kA, 190));
  CHECK(g.accept_connection(kA, 191));
  CHECK(g.stats().conn_rejected == 2);
}

TEST_CASE("dos: relays are never counted as clients", "[dos]") {
  proto::DosParams p;
  p.conn_enabled = true;
  p.conn_max_concurrent = 1;
  DosGuard g(p);
  g.set_relay_addresses({kA});
  for (int i = 0; i < 10; ++i) {
    CHECK(g.accept_connection(kA, 1));
    CHECK_FALSE(g.client_connection_opened(kA, 1));
  }
  CHECK(g.addresses() == 0);
}

TEST_CASE("dos: per-address state is bounded, idle addresses are forgotten first", "[dos]") {
  proto::DosParams p;
  p.conn_enabled = true;
  DosGuard g(p, 8);
  // Address 0 holds a connection; 1..7 connected and left.
  for (std::uint8_t i = 0; i < 8; ++i) {
    const auto a = proto::dos_address_v4({10, 0, 0, i});
    REQUIRE(g.client_connection_opened(a, 10 + i));
    if (i != 0) g.client_connection_closed(a);
  }
  CHECK(g.addresses() == 8);
  REQUIRE(g.client_connection_opened(proto::dos_address_v4({10, 0, 1, 0}), 100));
  CHECK(g.addresses() <= 8);
  CHECK(g.stats().addresses_forgotten == 3);  // half of the 7 idle ones, the least recently seen
  CHECK(g.concurrent(proto::dos_address_v4({10, 0, 0, 0})) == 1);
  CHECK(g.concurrent(proto::dos_address_v4({10, 0, 1, 0})) == 1);
  CHECK(g.addresses() == 6);
  // Addresses that all hold a connection are never forgotten: a newcomer
  // beyond the bound is not tracked.
  int tracked = 0;
  for (std::uint8_t i = 0; i < 100; ++i) tracked += g.client_connection_opened(proto::dos_address_v4({10, 1, 0, i}), 200);
  CHECK(g.addresses() == 8);
  CHECK(tracked == 6);  // 2 free slots, then the 4 idle (10.0.0.4 - 7) forgotten one sweep at a time
  CHECK(g.concurrent(proto::dos_address_v4({10, 0, 0, 0})) == 1);
}

TEST_CASE("dos stream creation: a circuit's bucket refuses or closes", "[dos]") {
  proto::DosParams p;
  p.stream_enabled = true;
  p.stream_rate = 1;
  p.stream_burst = 3;
  DosGuard g(p);
  for (int i = 0; i < 3; ++i) CHECK(g.stream_request(7, 1) == proto::StreamDosVerdict::Allow);
  CHECK(g.stream_request(7, 1) == proto::StreamDosVerdict::Refuse);
  CHECK(g.stream_request(8, 1) == proto::StreamDosVerdict::Allow);  // per circuit
  CHECK(g.stream_request(7, 2) == proto::StreamDosVerdict::Allow);  // refilled by 1
  CHECK(g.stats().stream_rejected == 1);
  g.circuit_closed(7);
  CHECK(g.circuits() == 1);

  p.stream_defense = proto::DosStreamDefense::CloseCircuit;
  g.set_params(p);
  for (int i = 0; i < 2; ++i) CHECK(g.stream_request(8, 1) == proto::StreamDosVerdict::Allow);
  CHECK(g.stream_request(8, 1) == proto::StreamDosVerdict::CloseCircuit);
  p.stream_enabled = false;
  g.set_params(p);
  CHECK(g.circuits() == 0);
  CHECK(g.stream_request(8, 1) == proto::StreamDosVerdict::Allow);
}
