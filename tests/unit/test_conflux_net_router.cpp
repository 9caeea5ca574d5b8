// The N-host router of an emulated network (conflux/netspec/router.hpp), in made-up time.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <vector>

#include "conflux/netspec/router.hpp"

using namespace conflux::netspec;
using namespace std::chrono_literals;

namespace {

constexpr std::uint32_t kNet = 0x0a4d0000;  // 10.77.0.0

// A minimal IPv4 header (20 bytes) from host .src to host .dst, padded to `size`.
std::vector<std::uint8_t> ipv4(std::uint8_t src, std::uint8_t dst, std::size_t size = 100) {
  std::vector<std::uint8_t> p(size, 0);
  p[0] = 0x45;
  p[2] = static_cast<std::uint8_t>(size >> 8);
  p[3] = static_cast<std::uint8_t>(size);
  p[12] = 10, p[13] = 77, p[15] = src;
  p[16] = 10, p[17] = 77, p[19] = dst;
  return p;
}

RouterHost host(std::uint8_t last, std::chrono::microseconds latency, double loss = 0.0) {
  RouterHost h;
  h.address = kNet | last;
  h.link.latency = latency;
  h.link.loss = loss;
  return h;
}

}  // namespace

TEST_CASE("router: route_of reads a well-formed IPv4 header's addresses", "[router]") {
  auto r = route_of(ipv4(1, 2));
  REQUIRE(r.has_value());
  CHECK(r->source == (kNet | 1));
  CHECK(r->destination == (kNet | 2));
  auto with_options = ipv4(3, 4, 64);
  with_options[0] = 0x4f;  // a 60-byte header
  CHECK(route_of(with_options).has_value());
}

TEST_CASE("router: route_of refuses what is not a whole IPv4 header", "[router]") {
  auto v6 = ipv4(1, 2);
  v6[0] = 0x60;
  CHECK_FALSE(route_of(v6).has_value());
  CHECK_FALSE(route_of(std::vector<std::uint8_t>(19, 0x45)).has_value());
  auto short_ihl = ipv4(1, 2);
  short_ihl[0] = 0x44;  // a 16-byte header
  CHECK_FALSE(route_of(short_ihl).has_value());
  auto long_total = ipv4(1, 2, 100);
  long_total[3] = 101;  // says one byte more than was read
  CHECK_FALSE(route_of(long_total).has_value());
  auto long_header = ipv4(1, 2, 40);
  long_header[0] = 0x4f;  // 60 bytes of header in a 40-byte packet
  CHECK_FALSE(route_of(long_header).has_value());
}

TEST_CASE("router: a packet crosses the sender's uplink and the receiver's downlink", "[router]") {
  Router r({host(1, 5ms), host(2, 40ms)}, 21);
  r.push(0, EmuTime(1ms), ipv4(1, 2));
  // 5 ms up host 1's link, then 40 ms down host 2's.
  REQUIRE(r.next_release() == EmuTime(6ms));
  CHECK_FALSE(r.pop_due(EmuTime(6ms)).has_value());
  REQUIRE(r.next_release() == EmuTime(46ms));
  CHECK_FALSE(r.pop_due(EmuTime(46ms) - EmuTime(1)).has_value());
  auto d = r.pop_due(EmuTime(46ms));
  REQUIRE(d.has_value());
  CHECK(d->host == 1);
  CHECK(d->packet == ipv4(1, 2));
  CHECK(r.next_release() == std::nullopt);
  CHECK(r.uplink(0).delivered == 1);
  CHECK(r.downlink(1).delivered == 1);
}

TEST_CASE("router: a late caller does not add its lateness to the second hop", "[router]") {
  Router r({host(1, 5ms), host(2, 40ms)}, 21);
  r.push(0, EmuTime(0), ipv4(1, 2));
  // Nobody looked at 5 ms; at 30 ms the packet is on host 2's link since 5 ms, due at 45 ms.
  CHECK_FALSE(r.pop_due(EmuTime(30ms)).has_value());
  CHECK(r.next_release() == EmuTime(45ms));
  // Even later than that: delivered at once.
  Router late({host(1, 5ms), host(2, 40ms)}, 21);
  late.push(0, EmuTime(0), ipv4(1, 2));
  auto d = late.pop_due(EmuTime(100ms));
  REQUIRE(d.has_value());
  CHECK(d->host == 1);
}

TEST_CASE("router: the round trip between two hosts is twice the sum of their latencies", "[router]") {
  Router r({host(1, 0ms), host(2, 10ms), host(3, 40ms)}, 21);
  const std::vector<std::pair<std::uint8_t, EmuTime>> far_hosts = {{2, 10ms}, {3, 40ms}};
  for (const auto& [far, latency] : far_hosts) {
    const EmuTime sent{1s};
    r.push(0, sent, ipv4(1, far));
    REQUIRE(r.next_release().has_value());
    auto due = *r.next_release();
    std::optional<Delivery> there;
    while (!(there = r.pop_due(due))) due = *r.next_release();
    REQUIRE(there->host == far - 1u);
    CHECK(due - sent == latency);
    // The answer leaves when the request arrived.
    r.push(far - 1u, due, ipv4(far, 1));
    auto back = *r.next_release();
    std::optional<Delivery> answer;
    while (!(answer = r.pop_due(back))) back = *r.next_release();
    CHECK(answer->host == 0);
    CHECK(back - sent == 2 * latency);
  }
}

TEST_CASE("router: packets to nobody and packets that are not IPv4 are counted, not delivered", "[router]") {
  Router r({host(1, 1ms), host(2, 1ms)}, 21);
  r.push(0, EmuTime(0), ipv4(1, 9));
  auto v6 = ipv4(1, 2);
  v6[0] = 0x60;
  r.push(0, EmuTime(0), v6);
  r.push(7, EmuTime(0), ipv4(1, 2));  // no host 7: ignored
  CHECK_FALSE(r.pop_due(EmuTime(1s)).has_value());
  CHECK(r.counters().no_route == 1);
  CHECK(r.counters().undecodable == 1);
  CHECK(r.next_release() == std::nullopt);
}

TEST_CASE("router: each host's loss applies on its own link, and the same seed loses the same packets", "[router]") {
  auto run = [](std::uint64_t seed) {
    Router r({host(1, 1ms, 0.1), host(2, 1ms, 0.0)}, seed);
    std::vector<std::uint32_t> delivered;
    for (std::uint32_t i = 0; i < 2000; ++i) {
      auto p = ipv4(1, 2);
      p[4] = static_cast<std::uint8_t>(i >> 8), p[5] = static_cast<std::uint8_t>(i);
      r.push(0, EmuTime(std::chrono::microseconds(i * 10)), p);
    }
    while (auto d = r.pop_due(EmuTime(1h))) delivered.push_back((std::uint32_t{d->packet[4]} << 8) | d->packet[5]);
    CHECK(r.uplink(0).lost == 2000 - delivered.size());
    CHECK(r.downlink(1).lost == 0);
    return delivered;
  };
  const auto a = run(5);
  CHECK(a.size() > 1700);
  CHECK(a.size() < 1900);
  CHECK(run(5) == a);
  CHECK(run(6) != a);
}

TEST_CASE("router: packets from several hosts leave in the order they are due", "[router]") {
  Router r({host(1, 30ms), host(2, 10ms), host(3, 0ms)}, 21);
  r.push(0, EmuTime(0), ipv4(1, 3));  // due at host 3 at 30 ms
  r.push(1, EmuTime(0), ipv4(2, 3));  // at 10 ms
  r.push(1, EmuTime(25ms), ipv4(2, 3, 200));  // at 35 ms
  std::vector<std::size_t> sizes;
  while (auto d = r.pop_due(EmuTime(1s))) {
    CHECK(d->host == 2);
    sizes.push_back(d->packet.size() == 200 ? 3 : route_of(d->packet)->source & 0xff);
  }
  CHECK(sizes == std::vector<std::size_t>{2, 1, 3});
}
