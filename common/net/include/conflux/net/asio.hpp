#pragma once
// The Boost.Asio surface the runtime uses, in one place so it can be a
// precompiled header. Protocol code (common/proto, cell, crypto) never
// includes this.
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

namespace conflux::net {
namespace asio = boost::asio;
using asio::awaitable;
using tcp = asio::ip::tcp;
using TlsStream = asio::ssl::stream<tcp::socket>;
// Coroutine completion token that reports errors as values (no exceptions on
// the hot path).
inline constexpr auto use_nothrow = asio::as_tuple(asio::use_awaitable);
}  // namespace conflux::net
