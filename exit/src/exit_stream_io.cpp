// The socket side of a stream: connect, server -> client (read only while
// both windows are open), client -> server (bounded by the stream window),
// and the closing handshake with the server.
#include <algorithm>

#include "exit_impl.hpp"

namespace conflux::exit {

cell::EndReason end_reason_for(const boost::system::error_code& ec) noexcept {
  if (ec == asio::error::eof) return cell::EndReason::Done;
  if (ec.category() == boost::system::system_category()) return end_reason_for_errno(ec.value());
  return cell::EndReason::Misc;
}

tcp::endpoint to_endpoint(const cell::RelayIpAddr& addr, std::uint16_t port) {
  if (const auto* v4 = std::get_if<cell::Ipv4Bytes>(&addr)) return {asio::ip::address_v4(*v4), port};
  return {asio::ip::address_v6(std::get<cell::Ipv6Bytes>(addr)), port};
}

// ---- connect ---------------------------------------------------------------------

void ExitStreams::Impl::start_connect(StreamPtr s) {
  s->phase = Phase::Connecting;
  const tcp::endpoint target = to_endpoint(s->addr, s->port);
  log(LogLevel::Debug, "stream " + std::to_string(s->id.value()) + ": connecting to " +
                           target.address().to_string() + " port " + std::to_string(s->port));
  arm_timer(s, cfg.timeouts.connect, &Impl::connect_timed_out);
  s->socket.async_connect(target, [this, s](const boost::system::error_code& ec) {
    if (s->closed || s->phase != Phase::Connecting) return;
    on_connected(s, ec);
  });
}

void ExitStreams::Impl::connect_timed_out(StreamPtr s) {
  log(LogLevel::Info, "connect timed out");
  fail(s, cell::EndReason::Timeout);
}

void ExitStreams::Impl::on_connected(StreamPtr s, const boost::system::error_code& ec) {
  s->timer.cancel();
  if (ec) {
    log(LogLevel::Info, "connect failed: " + ec.message());
    return fail(s, end_reason_for(ec));
  }
  --pending;
  s->phase = Phase::Open;
  s->connected = true;
  ++open;
  ++counters.streams_connected;
  (void)s->machine.connect_succeeded();
  // tor-spec 6.2: CONNECTED for a BEGIN_DIR is empty (no address, no TTL).
  const cell::ConnectedMsg connected =
      s->dir ? cell::ConnectedMsg{} : cell::ConnectedMsg{cell::RelayAddrTtl{s->addr, s->ttl}};
  if (!send(s, connected)) return;
  pump_up(s);  // optimistic data the client sent while we connected
  if (!s->closed) pump_down(s);
}

// ---- server -> client ---------------------------------------------------------------

void ExitStreams::Impl::pump_down(StreamPtr s) {
  if (s->closed || !s->attached || s->phase != Phase::Open || s->pumping) return;
  s->pumping = true;
  while (s->down_off < s->down.size()) {
    if (s->machine.package_window() == CellCount{0} || !out.can_send_data(s->circuit) || !s->machine.data_sent()) {
      s->pumping = false;
      return;  // on_circuit_writable or a stream SENDME calls us again
    }
    const std::size_t n = std::min(kMaxDataLen, s->down.size() - s->down_off);
    const auto first = s->down.begin() + static_cast<std::ptrdiff_t>(s->down_off);
    cell::DataMsg msg;
    msg.data.assign(first, first + static_cast<std::ptrdiff_t>(n));
    s->down_off += n;
    if (!send(s, msg)) return;
    counters.bytes_to_clients += n;
  }
  s->pumping = false;
  s->down.clear();
  s->down_off = 0;
  start_read(s);
}

void ExitStreams::Impl::start_read(StreamPtr s) {
  if (s->closed || s->reading || s->phase != Phase::Open || s->server_eof) return;
  const auto window = static_cast<std::size_t>(s->machine.package_window().value());
  // Backpressure: with either window shut, the server waits in its own
  // socket buffer, not in ours.
  if (window == 0 || !out.can_send_data(s->circuit)) return;
  s->read_buf.resize(std::min(window, cfg.limits.read_cells) * kMaxDataLen);
  s->reading = true;
  s->socket.async_read_some(asio::buffer(s->read_buf), [this, s](const boost::system::error_code& ec, std::size_t n) {
    s->reading = false;
    if (s->closed) return;
    on_read(s, ec, n);
  });
}

void ExitStreams::Impl::on_read(StreamPtr s, const boost::system::error_code& ec, std::size_t n) {
  if (s->phase == Phase::Closing) {
    // Draining after END: the bytes are discarded, we only wait for the FIN.
    if (!ec) return start_drain(s);
    s->server_eof = true;
    if (ec != asio::error::eof) return finish(s);
    return maybe_finish_closing(s);
  }
  if (ec == asio::error::eof) {
    // Everything read before was sent already (we read only an empty buffer).
    s->server_eof = true;
    const proto::StreamActions a = s->machine.edge_closed(cell::EndReason::Done);
    if (a.send_end && !send_end(s, *a.send_end)) return;
    return begin_closing(s);
  }
  if (ec) return edge_failed(s, ec);
  // pump_down started this read only once 'down' was empty.
  s->down.swap(s->read_buf);
  s->down.resize(n);
  s->down_off = 0;
  pump_down(s);
}

void ExitStreams::Impl::edge_failed(StreamPtr s, const boost::system::error_code& ec) {
  log(LogLevel::Info, "stream socket error: " + ec.message());
  const proto::StreamActions a = s->machine.edge_closed(end_reason_for(ec));
  if (a.send_end && !send_end(s, *a.send_end)) return;
  finish(s);
}

// ---- client -> server ---------------------------------------------------------------

void ExitStreams::Impl::pump_up(StreamPtr s) {
  if (s->closed || s->writing || s->shut_down || s->up.empty()) return;
  if (s->phase != Phase::Open && s->phase != Phase::Closing) return;  // still connecting: keep it
  constexpr std::size_t kMaxChunksPerWrite = 32;
  std::vector<asio::const_buffer> buffers;
  for (const auto& chunk : s->up) {
    if (buffers.size() == kMaxChunksPerWrite) break;
    buffers.push_back(asio::buffer(chunk));
  }
  // The chunks stay put while queued: a deque keeps its elements in place
  // when others are added at the back.
  s->up_in_flight = buffers.size();
  s->writing = true;
  asio::async_write(s->socket, buffers, [this, s](const boost::system::error_code& ec, std::size_t n) {
    s->writing = false;
    if (s->closed) return;
    on_write(s, ec, n);
  });
}

void ExitStreams::Impl::on_write(StreamPtr s, const boost::system::error_code& ec, std::size_t n) {
  if (ec) {
    if (s->phase == Phase::Open) return edge_failed(s, ec);
    return finish(s);  // END already exchanged: nothing to tell anyone
  }
  for (std::size_t i = 0; i < s->up_in_flight; ++i) {
    s->up_bytes -= s->up.front().size();
    s->up.pop_front();
  }
  s->up_in_flight = 0;
  counters.bytes_to_servers += n;
  if (s->phase == Phase::Open) {
    send_deferred_sendmes(s);
    if (s->closed) return;
  }
  if (!s->up.empty()) return pump_up(s);
  if (s->phase == Phase::Closing) maybe_finish_closing(s);
}

void ExitStreams::Impl::send_deferred_sendmes(const StreamPtr& s) {
  if (s->up_bytes >= kBacklogCells * kMaxDataLen) return;
  while (!s->closed && s->machine.take_deferred_sendme()) {
    if (!send(s, cell::SendmeMsg{})) return;
  }
}

// ---- closing ---------------------------------------------------------------------

void ExitStreams::Impl::begin_closing(StreamPtr s) {
  s->phase = Phase::Closing;
  detach(s);
  arm_timer(s, cfg.timeouts.linger, &Impl::linger_expired);
  // Read (and discard) until the server's FIN so our close is not a reset.
  if (!s->reading && !s->server_eof) start_drain(s);
  maybe_finish_closing(s);
}

void ExitStreams::Impl::start_drain(StreamPtr s) {
  if (s->closed || s->reading) return;
  s->read_buf.resize(4096);
  s->reading = true;
  s->socket.async_read_some(asio::buffer(s->read_buf), [this, s](const boost::system::error_code& ec, std::size_t n) {
    s->reading = false;
    if (s->closed) return;
    on_read(s, ec, n);
  });
}

void ExitStreams::Impl::maybe_finish_closing(const StreamPtr& s) {
  if (s->closed || s->writing || !s->up.empty()) return;
  if (!s->shut_down) {
    boost::system::error_code ignored;
    s->socket.shutdown(tcp::socket::shutdown_send, ignored);
    s->shut_down = true;
  }
  if (s->server_eof) finish(s);
}

void ExitStreams::Impl::linger_expired(StreamPtr s) { finish(s); }

}  // namespace conflux::exit
