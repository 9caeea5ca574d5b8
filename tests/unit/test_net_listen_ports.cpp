// Listen ports picked below the kernel's ephemeral range
// (net/listen_ports.hpp): where outgoing connections cannot take them
// between the pick and the listener's bind.
#include <catch2/catch.hpp>
#include <set>

#include "conflux/net/asio.hpp"
#include "conflux/net/listen_ports.hpp"

using namespace conflux;

TEST_CASE("listen ports: the range ends below the ephemeral one, or is empty when there is no room", "[net]") {
  const auto r = net::listen_port_range({32768, 60999});
  CHECK(r.first == net::kListenPortFloor);
  CHECK(r.last == 32767);
  CHECK(net::listen_port_range({net::kListenPortFloor + 999, 60999}).first == 0);
  CHECK(net::listen_port_range({1024, 65000}).first == 0);
}

TEST_CASE("listen ports: distinct, bindable, below the ephemeral range", "[net]") {
  boost::asio::io_context io;
  std::string error;
  const auto ports = net::pick_listen_ports(io, 40, error);
  INFO(error);
  REQUIRE(ports.size() == 40);
  CHECK(std::set<std::uint16_t>(ports.begin(), ports.end()).size() == 40);
  const auto range = net::listen_port_range(net::ephemeral_port_range());
  for (auto port : ports) {
    if (range.first != 0) {
      CHECK(port >= range.first);
      CHECK(port <= range.last);
    }
    // Released: a listener can have it.
    boost::asio::ip::tcp::acceptor a(io, {boost::asio::ip::make_address_v4("127.0.0.1"), port});
    CHECK(a.is_open());
  }
}
