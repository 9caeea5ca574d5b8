// Link sockets run with TCP_NODELAY (set_link_socket_options): channels batch
// cells themselves, and Nagle would hold a lone SENDME until the previous
// segment's ACK, adding to the RTT congestion control measures. connect_tcp,
// which relays and proxies use for every outbound link, returns such a socket.
#include <catch2/catch.hpp>
#include <optional>
#include <utility>
#include <vector>

#include "conflux/net/link_channel.hpp"

using namespace conflux;
using namespace conflux::net;

TEST_CASE("connect_tcp returns a link socket with TCP_NODELAY set", "[net][link]") {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address_v4("127.0.0.1"), 0));
  tcp::socket accepted(io);
  acceptor.async_accept(accepted, [](const boost::system::error_code&) {});
  std::optional<std::pair<boost::system::error_code, tcp::socket>> result;
  asio::co_spawn(
      io,
      [&]() -> awaitable<void> {
        std::vector<tcp::endpoint> to{acceptor.local_endpoint()};
        auto r = co_await connect_tcp(std::move(to), std::chrono::milliseconds(5000));
        result = std::move(r);
      },
      asio::detached);
  io.run_for(std::chrono::seconds(10));
  REQUIRE(result.has_value());
  REQUIRE_FALSE(result->first);
  tcp::no_delay option;
  result->second.get_option(option);
  CHECK(option.value());

  // The helper on a socket of our own (the accept path calls it too).
  REQUIRE(accepted.is_open());
  accepted.get_option(option);
  CHECK_FALSE(option.value());  // the kernel's default: Nagle on
  set_link_socket_options(accepted);
  accepted.get_option(option);
  CHECK(option.value());
}
