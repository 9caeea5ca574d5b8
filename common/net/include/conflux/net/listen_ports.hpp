#pragma once
// Ports for processes that will listen on 127.0.0.1, chosen now and bound
// later (conflux-net's networks, the process tests). They come from below
// the kernel's ephemeral range: a port from bind(0) is in that range, and
// between our release and the process's bind any outgoing connection on the
// machine may take it as its source port ("Address already in use" under a
// loaded test run). Below the range only another listener can take it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

namespace conflux::net {

struct PortRange {
  std::uint16_t first = 0;  // inclusive
  std::uint16_t last = 0;   // inclusive
};

// The kernel's ephemeral range (/proc/sys/net/ipv4/ip_local_port_range);
// Linux's default when the file cannot be read.
[[nodiscard]] PortRange ephemeral_port_range();

// Where listen ports are picked from: [kListenPortFloor, ephemeral first),
// or the empty range when the ephemeral range starts too low to leave room.
inline constexpr std::uint16_t kListenPortFloor = 25000;
[[nodiscard]] PortRange listen_port_range(PortRange ephemeral);

// `n` distinct ports on 127.0.0.1 that could all be bound a moment ago (all
// held together while picked, then released). From listen_port_range at a
// random start; from bind(0) when that range is empty or full. Empty with
// `error` set when not even bind(0) works.
[[nodiscard]] std::vector<std::uint16_t> pick_listen_ports(boost::asio::io_context& io, std::size_t n,
                                                           std::string& error);

}  // namespace conflux::net
