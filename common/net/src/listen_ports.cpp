#include "conflux/net/listen_ports.hpp"

#include <fstream>
#include <memory>
#include <random>

#include "conflux/net/asio.hpp"

namespace conflux::net {

namespace {
using tcp = boost::asio::ip::tcp;

constexpr PortRange kLinuxDefaultEphemeral{32768, 60999};

// An acceptor bound (not listening) to 127.0.0.1:port, or null. No
// SO_REUSEADDR: a port with connections in TIME_WAIT is passed over.
std::unique_ptr<tcp::acceptor> hold(boost::asio::io_context& io, std::uint16_t port) {
  auto a = std::make_unique<tcp::acceptor>(io);
  boost::system::error_code ec;
  a->open(tcp::v4(), ec);
  if (!ec) a->bind({boost::asio::ip::make_address_v4("127.0.0.1"), port}, ec);
  return ec ? nullptr : std::move(a);
}
}  // namespace

PortRange ephemeral_port_range() {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  unsigned first = 0;
  unsigned last = 0;
  if (!(in >> first >> last) || first == 0 || first > last || last > 65535) return kLinuxDefaultEphemeral;
  return {static_cast<std::uint16_t>(first), static_cast<std::uint16_t>(last)};
}

PortRange listen_port_range(PortRange ephemeral) {
  // Room for a few networks' worth of ports, or none at all.
  if (ephemeral.first < kListenPortFloor + 1000) return {};
  return {kListenPortFloor, static_cast<std::uint16_t>(ephemeral.first - 1)};
}

std::vector<std::uint16_t> pick_listen_ports(boost::asio::io_context& io, std::size_t n, std::string& error) {
  std::vector<std::unique_ptr<tcp::acceptor>> held;
  std::vector<std::uint16_t> ports;
  const auto range = listen_port_range(ephemeral_port_range());
  if (range.first != 0) {
    const unsigned size = range.last - range.first + 1U;
    std::random_device rd;
    const unsigned start = std::uniform_int_distribution<unsigned>(0, size - 1)(rd);
    for (unsigned i = 0; i < size && ports.size() < n; ++i) {
      const auto port = static_cast<std::uint16_t>(range.first + (start + i) % size);
      if (auto a = hold(io, port)) {
        ports.push_back(port);
        held.push_back(std::move(a));
      }
    }
  }
  while (ports.size() < n) {
    auto a = hold(io, 0);
    if (!a) {
      error = "cannot find a free port on 127.0.0.1";
      return {};
    }
    ports.push_back(a->local_endpoint().port());
    held.push_back(std::move(a));
  }
  return ports;
}

}  // namespace conflux::net
