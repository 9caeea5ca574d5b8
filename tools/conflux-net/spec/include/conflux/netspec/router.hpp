#pragma once
// The core of an emulated network of N hosts (docs/CONFLUX-NET.md, "Emulated
// networks"), apart from its devices and its clock: every host has one access
// link to a central router, and each link has its own latency, jitter, loss and
// rate in each direction (two DelayLines). A packet a host sends crosses its own
// uplink, is routed by its IPv4 destination address, and crosses the
// destination's downlink; so the round trip between hosts A and B is
// 2 x (latency A + latency B), and a host's latency shows in every path through
// it, as an access link's does.
//
// The router process (app/router.cpp) reads packets from one TUN device per
// host, pushes them here, and writes what pop_due hands back; unit tests drive it
// with made-up times.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "conflux/netspec/delay_line.hpp"

namespace conflux::netspec {

struct Ipv4Route {
  std::uint32_t source = 0;       // host byte order
  std::uint32_t destination = 0;  // host byte order
};

// The addresses of an IPv4 packet read from a TUN device (no packet-information
// header); nullopt unless it is a well-formed IPv4 header (version 4, header
// length 20 to 60 bytes within the packet, total length covering the header and
// within what was read). Anything else (IPv6, runts) is not routed.
[[nodiscard]] std::optional<Ipv4Route> route_of(std::span<const std::uint8_t> packet);

struct RouterHost {
  std::uint32_t address = 0;  // its one IPv4 address, host byte order
  LinkParams link;            // its access link, the same in both directions
};

struct RouterCounters {
  std::uint64_t undecodable = 0;  // not IPv4 (route_of said no)
  std::uint64_t no_route = 0;     // IPv4 to an address no host has
};

struct Delivery {
  std::size_t host = 0;  // whose device the packet is written to
  std::vector<std::uint8_t> packet;
};

class Router {
 public:
  // Addresses must differ (the caller checks: the last of two equal ones would
  // never receive). `seed` makes every link's draws reproducible; each
  // direction of each link has its own generator.
  Router(std::vector<RouterHost> hosts, std::uint64_t seed);

  // A packet host `from` sent (read from its device) at `now`.
  void push(std::size_t from, EmuTime now, std::vector<std::uint8_t> packet);
  // When the next packet is due anywhere (to cross to a downlink or to be
  // delivered); nullopt when nothing is in flight.
  [[nodiscard]] std::optional<EmuTime> next_release() const;
  // The next packet due for delivery at `now`, in the order of the times they
  // were due; call until nullopt. Uplink packets due by `now` move to their
  // downlinks on the way, at the time they were due, so a caller that is late
  // does not add its lateness to the second hop.
  std::optional<Delivery> pop_due(EmuTime now);

  [[nodiscard]] std::size_t hosts() const noexcept { return hosts_.size(); }
  [[nodiscard]] const DelayLineCounters& uplink(std::size_t host) const { return up_[host].counters(); }
  [[nodiscard]] const DelayLineCounters& downlink(std::size_t host) const { return down_[host].counters(); }
  [[nodiscard]] const RouterCounters& counters() const noexcept { return counters_; }

 private:
  [[nodiscard]] std::optional<std::size_t> host_of(std::uint32_t address) const;

  std::vector<RouterHost> hosts_;
  // Line i is host i's uplink, line hosts + i its downlink. Lines are scanned
  // for the earliest release: a network here has at most some hundred hosts,
  // and a scan of them costs less than the system calls each packet needs.
  std::vector<DelayLine> up_, down_;
  RouterCounters counters_;
};

}  // namespace conflux::netspec
