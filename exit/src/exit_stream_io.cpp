// The socket side of a stream: connect, then the reads and writes the
// StreamPump asks for, the XON rate's read timer and the closing handshake's.
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
  s->last_progress = now();
  ++open;
  ++counters.streams_connected;
  // tor-spec 6.2: CONNECTED for a BEGIN_DIR is empty (no address, no TTL).
  const cell::ConnectedMsg connected =
      s->dir ? cell::ConnectedMsg{} : cell::ConnectedMsg{cell::RelayAddrTtl{s->addr, s->ttl}};
  if (!send(s, connected)) return;
  pump.opened(s->ref);  // writes the optimistic data, then reads
  run();
}

// ---- reads and writes --------------------------------------------------------------

void ExitStreams::Impl::start_read(StreamPtr s, std::size_t max_bytes) {
  s->read_buf.resize(std::max<std::size_t>(max_bytes, 1));
  s->socket.async_read_some(asio::buffer(s->read_buf), [this, s](const boost::system::error_code& ec, std::size_t n) {
    if (s->closed) return;
    on_read(s, ec, n);
  });
}

void ExitStreams::Impl::read_later(const StreamPtr& s, proto::CcClock::duration after) {
  // Whole milliseconds, rounded up: the bucket has refilled by then.
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(after);
  arm_timer(s, std::max(ms, std::chrono::milliseconds(1)), &Impl::read_time_came);
}

void ExitStreams::Impl::read_time_came(StreamPtr s) {
  pump.read_allowed(s->ref, now());
  run();
}

void ExitStreams::Impl::on_read(StreamPtr s, const boost::system::error_code& ec, std::size_t n) {
  if (ec == asio::error::eof) {
    pump.server_eof(s->ref);
  } else if (ec) {
    if (s->phase == Phase::Open) log(LogLevel::Info, "stream socket error: " + ec.message());
    pump.server_error(s->ref, end_reason_for(ec));
  } else {
    s->last_progress = now();
    pump.server_read(s->ref, std::span<const std::uint8_t>(s->read_buf.data(), n), now());
  }
  run();
}

void ExitStreams::Impl::start_write(StreamPtr s, std::vector<std::vector<std::uint8_t>> chunks) {
  s->write_chunks = std::move(chunks);
  std::vector<asio::const_buffer> buffers;
  buffers.reserve(s->write_chunks.size());
  for (const auto& chunk : s->write_chunks) buffers.push_back(asio::buffer(chunk));
  asio::async_write(s->socket, buffers, [this, s](const boost::system::error_code& ec, std::size_t n) {
    if (s->closed) return;
    on_write(s, ec, n);
  });
}

void ExitStreams::Impl::on_write(StreamPtr s, const boost::system::error_code& ec, std::size_t n) {
  s->write_chunks.clear();
  if (ec) {
    if (s->phase == Phase::Open) log(LogLevel::Info, "stream socket error: " + ec.message());
    pump.write_failed(s->ref, end_reason_for(ec));
  } else {
    counters.bytes_to_servers += n;
    s->last_progress = now();
    pump.server_written(s->ref, n, now());
  }
  run();
}

// ---- closing ---------------------------------------------------------------------

void ExitStreams::Impl::detach_closing(StreamPtr s) {
  s->phase = Phase::Closing;
  detach(s);
  arm_timer(s, cfg.timeouts.linger, &Impl::linger_expired);
}

void ExitStreams::Impl::linger_expired(StreamPtr s) { finish(s); }

}  // namespace conflux::exit
