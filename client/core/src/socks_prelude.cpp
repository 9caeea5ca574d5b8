#include "conflux/client/socks_prelude.hpp"

#include <array>
#include <memory>
#include <span>

namespace conflux::client {
namespace {

using Result = net::ClientLink::PreludeResult;

net::awaitable<Result> run_socks5(net::tcp::socket& socket, socks::ClientRequest request) {
  socks::ClientHandshake hs(std::move(request));
  auto step = hs.start();
  std::array<std::uint8_t, 512> buf{};
  for (;;) {
    if (!step.send.empty()) {
      auto [ec, n] = co_await net::asio::async_write(socket, net::asio::buffer(step.send), net::use_nothrow);
      if (ec) co_return Result{ec, "transport SOCKS write: " + ec.message()};
    }
    if (step.status == socks::ClientHandshake::Status::Failed)
      co_return Result{net::asio::error::connection_refused, "transport SOCKS: " + step.error};
    if (step.status == socks::ClientHandshake::Status::Connected) break;
    auto [ec, n] = co_await socket.async_read_some(net::asio::buffer(buf), net::use_nothrow);
    if (ec) co_return Result{ec, "transport SOCKS read: " + ec.message()};
    step = hs.feed(std::span<const std::uint8_t>(buf.data(), n));
  }
  // The bridge speaks only after our TLS ClientHello: bytes here would be
  // lost to the TLS stream, so they are a broken transport.
  if (!step.rest.empty())
    co_return Result{net::asio::error::fault, "transport SOCKS: bytes from the bridge before our TLS ClientHello"};
  co_return Result{};
}

}  // namespace

net::ClientLink::Prelude socks5_prelude(socks::ClientRequest request) {
  return [request = std::move(request)](net::tcp::socket& socket) { return run_socks5(socket, request); };
}

}  // namespace conflux::client
