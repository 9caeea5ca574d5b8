// The emulated network's router (conflux/netspec/router.hpp): route_of on any
// bytes, and a Router of 1-8 hosts fed packets and pops in any order and time.
// Never crashes; route_of accepts only packets at least as long as the header
// and its total length say; a delivered packet goes to the host whose address
// is its destination, never before it was due, never twice; every packet pushed
// is delivered, lost, dropped or counted unroutable, or still in flight.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "conflux/netspec/router.hpp"
#include "fuzz_input.hpp"

using namespace conflux::netspec;

namespace {

void check_route(std::span<const std::uint8_t> bytes) {
  const auto r = route_of(bytes);
  if (!r) return;
  const std::size_t header = static_cast<std::size_t>(bytes[0] & 0x0f) * 4;
  const std::size_t total = (static_cast<std::size_t>(bytes[2]) << 8) | bytes[3];
  if (bytes.size() < 20 || header < 20 || header > bytes.size() || total > bytes.size() || total < header)
    __builtin_trap();
}

std::vector<std::uint8_t> packet_from(conflux::fuzz::Input& in, std::uint8_t hosts) {
  const std::size_t size = in.u8() % 2 == 0 ? 20u + in.u8() : in.u8() % 64u;
  std::vector<std::uint8_t> p(size, 0);
  for (auto& b : p) b = in.u8();
  if (size >= 20 && in.u8() % 4 != 0) {
    // Mostly well-formed, to a host or just past the last one.
    p[0] = 0x45;
    p[2] = static_cast<std::uint8_t>(size >> 8);
    p[3] = static_cast<std::uint8_t>(size);
    p[16] = 10, p[17] = 77, p[18] = 0, p[19] = static_cast<std::uint8_t>(1 + in.u8() % (hosts + 1));
  }
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check_route({data, size});
  conflux::fuzz::Input in{data, size};
  const std::uint8_t n = static_cast<std::uint8_t>(1 + in.u8() % 8);
  std::vector<RouterHost> hosts;
  for (std::uint8_t i = 0; i < n; ++i) {
    RouterHost h;
    h.address = 0x0a4d0000u | (i + 1u);
    h.link.latency = std::chrono::microseconds(in.u8() * 100);
    h.link.jitter = std::chrono::microseconds(in.u8() * 50);
    h.link.loss = in.u8() / 512.0;
    h.link.rate = in.u8() % 2 == 0 ? 0 : 1000u * (1u + in.u8());
    h.link.queue_packets = 1u + in.u8() % 16;
    h.link.queue_bytes = 64u + in.u8() * 16u;
    hosts.push_back(h);
  }
  Router r(hosts, in.u32());
  EmuTime now{0};
  std::uint64_t pushed = 0, delivered = 0;
  while (!in.empty()) {
    now += EmuTime(std::chrono::microseconds(in.u8() * 37));
    if (in.u8() % 3 != 0) {
      const std::size_t from = in.u8() % (n + 1u);  // n: no such host, ignored
      if (from < n) ++pushed;
      r.push(from, now, packet_from(in, n));
      continue;
    }
    while (auto d = r.pop_due(now)) {
      const auto route = route_of(d->packet);
      if (!route || d->host >= n || route->destination != hosts[d->host].address) __builtin_trap();
      ++delivered;
    }
    if (auto next = r.next_release(); next && *next <= now) __builtin_trap();
  }
  while (auto next = r.next_release()) {
    now = std::max(now, *next);
    while (r.pop_due(now)) ++delivered;
  }
  std::uint64_t accounted = r.counters().undecodable + r.counters().no_route;
  for (std::size_t i = 0; i < n; ++i) {
    accounted += r.uplink(i).lost + r.uplink(i).overflow + r.downlink(i).lost + r.downlink(i).overflow;
  }
  if (delivered + accounted != pushed) __builtin_trap();
  return 0;
}
