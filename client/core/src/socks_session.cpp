#include "conflux/client/socks_session.hpp"

#include <array>
#include <memory>

#include "conflux/cell/relay_header.hpp"
#include "conflux/client/client_stream.hpp"
#include "conflux/client/socks_requests.hpp"
#include "conflux/path/client_guards.hpp"
#include "conflux/socks/handshake.hpp"

namespace conflux::client {
namespace {

using Clock = std::chrono::steady_clock;

// Closes the socket when the deadline passes, which ends any read or write
// in progress: a stalled client cannot hold the session forever.
class Watchdog {
 public:
  Watchdog(net::tcp::socket& s, Clock::time_point deadline) : timer_(s.get_executor()) {
    timer_.expires_at(deadline);
    timer_.async_wait([&s, fired = fired_](const boost::system::error_code& ec) {
      if (ec) return;
      *fired = true;
      boost::system::error_code ignored;
      s.close(ignored);
    });
  }
  ~Watchdog() { timer_.cancel(); }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  [[nodiscard]] bool fired() const { return *fired_; }

 private:
  std::shared_ptr<bool> fired_ = std::make_shared<bool>(false);
  net::asio::steady_timer timer_;
};

// Tor retries these on another exit; the others are the destination's
// answer (refused, no such host, done) and go back to the application.
bool worth_retrying(cell::EndReason r) {
  switch (r) {
    case cell::EndReason::ExitPolicy:
    case cell::EndReason::Destroy:
    case cell::EndReason::Timeout:
    case cell::EndReason::ResourceLimit:
    case cell::EndReason::Hibernating:
    case cell::EndReason::Internal:
    case cell::EndReason::Misc:
    case cell::EndReason::NoRoute:
      return true;
    default:
      return false;
  }
}

struct Session {
  net::tcp::socket socket;
  std::shared_ptr<ClientStream> stream;
  bool closing = false;
};

// Issue 14: a stream whose bytes stop while its carrier works. While one
// direction has waited kStallReportAfter without moving a byte, its state
// goes to the info log, again every kStallReportAfter: a load test that
// fails under load keeps an info log, and the state names no address.
class StallReport {
 public:
  static constexpr auto kStallReportAfter = std::chrono::seconds(10);
  StallReport(SocksContext& ctx, const char* direction) : ctx_(ctx), direction_(direction) { moved(); }
  void moved() { since_ = last_ = ctx_.clock.now(); }
  void waiting(const ClientStream& st) {
    const auto now = ctx_.clock.now();
    if (now - last_ < kStallReportAfter) return;
    last_ = now;
    const auto idle = std::chrono::duration_cast<std::chrono::seconds>(now - since_).count();
    net::emit(ctx_.log, net::LogLevel::Info,
              std::string(direction_) + " stalled for " + std::to_string(idle) + " s: " + st.describe());
  }

 private:
  SocksContext& ctx_;
  const char* direction_;
  net::Clock::Monotonic::time_point since_, last_;
};

net::awaitable<bool> write_all(net::tcp::socket& s, const std::vector<std::uint8_t>& bytes) {
  if (bytes.empty()) co_return true;
  auto [ec, n] = co_await net::asio::async_write(s, net::asio::buffer(bytes), net::use_nothrow);
  co_return !ec;
}

// Application -> network: read, cut into DATA cells, send while the
// windows allow.
net::awaitable<void> uplink(std::shared_ptr<Session> s, SocksContext& ctx, std::vector<std::uint8_t> early) {
  std::vector<std::uint8_t> buf(ctx.limits.read_chunk);
  std::vector<std::uint8_t> pending = std::move(early);
  std::size_t offset = 0;
  StallReport stall(ctx, "uplink");
  for (;;) {
    stall.moved();
    while (offset < pending.size()) {
      auto& st = *s->stream;
      if (s->closing || st.failed() || st.peer_end() || st.circuit() == nullptr) co_return;
      const std::size_t n = std::min(cell::kRelayBodyMaxLen, pending.size() - offset);
      // send_data() asks can_send_data() first; a carrier may still refuse.
      if (!st.send_data(bytes::ByteSpan(pending).subspan(offset, n))) {
        stall.waiting(st);
        co_await st.tx_wakeup().wait_for(std::chrono::seconds(5));
        continue;
      }
      stall.moved();
      ctx.counters.bytes_to_network += n;
      offset += n;
    }
    pending.clear();
    offset = 0;
    if (s->closing) co_return;
    // The rate in the exit's XON is not applied here (tor's client would
    // limit this read by it): the exit measures how fast one stream's server
    // drained, and a server busy with hundreds of requests for a moment gave
    // rates that held 1 MiB uploads past 90 s in system_load_*, since the
    // rate only doubles per cc_xon_rate bytes (docs/CONGESTION-CONTROL.md).
    // XOFF still stops these reads (can_send_data()).
    auto [ec, n] = co_await s->socket.async_read_some(net::asio::buffer(buf), net::use_nothrow);
    if (ec || n == 0) {
      // The application is done (EOF) or gone: END the stream, as tor does.
      if (!s->closing) {
        s->closing = true;
        s->stream->close(cell::EndReason::Done);
        s->stream->rx_wakeup().notify();
      }
      co_return;
    }
    pending.assign(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
  }
}

// Network -> application, until the stream ends; then the socket closes.
net::awaitable<void> downlink(std::shared_ptr<Session> s, SocksContext& ctx) {
  auto& st = *s->stream;
  StallReport stall(ctx, "downlink");
  for (;;) {
    if (st.pending_bytes() > 0) {
      stall.moved();
      auto chunk = st.take_received(64 * 1024);
      ctx.counters.bytes_from_network += chunk.size();
      if (!co_await write_all(s->socket, chunk)) break;
      continue;
    }
    if (s->closing || st.peer_end() || st.failed() || st.circuit() == nullptr) break;
    // An XON or SENDME the carrier refused is tried again every second
    // until it goes: without it the exit would send us nothing more.
    if (st.flow_owed()) st.retry_owed();
    stall.waiting(st);
    co_await st.rx_wakeup().wait_for(st.flow_owed() ? std::chrono::seconds(1) : std::chrono::seconds(30));
  }
  s->closing = true;
  boost::system::error_code ignored;
  s->socket.shutdown(net::tcp::socket::shutdown_both, ignored);
  s->socket.close(ignored);
  st.tx_wakeup().notify();
}

// tor's stream REASON= for an END reason (control-spec 4.1.2).
std::string_view reason_text(cell::EndReason r) {
  switch (r) {
    case cell::EndReason::ResolveFailed: return "RESOLVEFAILED";
    case cell::EndReason::ConnectRefused: return "CONNECTREFUSED";
    case cell::EndReason::ExitPolicy: return "EXITPOLICY";
    case cell::EndReason::Destroy: return "DESTROY";
    case cell::EndReason::Done: return "DONE";
    case cell::EndReason::Timeout: return "TIMEOUT";
    case cell::EndReason::NoRoute: return "NOROUTE";
    case cell::EndReason::Hibernating: return "HIBERNATING";
    case cell::EndReason::Internal: return "INTERNAL";
    case cell::EndReason::ResourceLimit: return "RESOURCELIMIT";
    case cell::EndReason::ConnReset: return "CONNRESET";
    case cell::EndReason::TorProtocol: return "TORPROTOCOL";
    default: return "MISC";
  }
}

// Tells the controller, if there is one.
struct StreamReporter {
  SocksContext& ctx;
  StreamReport r;
  // `stream`: the stream once it SUCCEEDED (its byte counts, for STREAM_BW).
  void operator()(std::string_view status, std::uint64_t circuit = 0, std::string_view reason = {},
                  std::weak_ptr<const ClientStream> stream = {}) {
    if (!ctx.on_stream) return;
    if (!stream.expired()) r.stream = std::move(stream);
    r.status = status;
    r.circuit = circuit;
    r.reason = reason;
    ctx.on_stream(r);
  }
};

// A new stream as a controller will see it: its number and target.
StreamReport new_stream_report(SocksContext& ctx, const socks::Request& request) {
  StreamReport r;
  r.id = ctx.next_stream_id++;
  r.target = socks::to_string(request.address) + ":" + std::to_string(request.port);
  return r;
}

// A stream no circuit carried: counted, logged, reported to a controller;
// the SOCKS reply it gets.
socks::Reply stream_failed(SocksContext& ctx, StreamReporter& report, std::optional<cell::EndReason> last_end,
                           bool no_exit, const std::string& failure, net::Clock::Monotonic::time_point deadline) {
  ++ctx.counters.streams_failed;
  if (ctx.network_disabled != nullptr && *ctx.network_disabled) {
    // tor's connection_mark_all_noncontrol_connections: the stream ends
    // with END_STREAM_REASON_HIBERNATING, a general failure to SOCKS.
    net::emit(ctx.log, net::LogLevel::Info, "Stream failed: DisableNetwork is set");
    report("FAILED", 0, "HIBERNATING");
    report("CLOSED", 0, "HIBERNATING");
    return socks::reply_for_end_reason(cell::EndReason::Hibernating);
  }
  const auto reply = last_end  ? socks::reply_for_end_reason(*last_end)
                     : no_exit ? socks::Reply::NotAllowed
                               : socks::Reply::GeneralFailure;
  std::string why =
      last_end ? "the exit ended it (reason " + std::to_string(static_cast<int>(*last_end)) + ")" : failure;
  // Whatever held it up, a stream is answered by SocksTimeout.
  if (!no_exit && ctx.clock.now() >= deadline) {
    ++ctx.counters.streams_socks_timeout;
    why = "SocksTimeout (" +
          std::to_string(std::chrono::duration_cast<std::chrono::seconds>(ctx.limits.socks_timeout).count()) +
          " s) reached: " + why;
  }
  net::emit(ctx.log, net::LogLevel::Info, "Stream failed: " + why);
  report("FAILED", 0, last_end ? reason_text(*last_end) : (no_exit ? "EXITPOLICY" : "TIMEOUT"));
  report("CLOSED", 0, "DONE");
  return reply;
}

// A stream stopped carrying data: it is no longer active, and its XON/XOFF
// go to the metrics.
void count_stream_end(ProxyCounters& c, const ClientStream& st) {
  --c.streams_active;
  if (const auto& d = st.deliver_flow()) {
    c.xoffs_sent += d->xoffs_sent();
    c.xons_sent += d->xons_sent();
  }
  if (const auto& p = st.package_flow()) {
    c.xoffs_received += p->xoffs_received();
    c.xons_received += p->xons_received();
  }
}

// What the stream's circuit must offer: the exit port, and the isolation
// key (the listener, then tor's IsolateSOCKSAuth, IsolateDestPort and
// IsolateDestAddr as configured).
StreamNeeds stream_needs(const socks::Request& request, const SocksIsolation& isolation, bool resolving) {
  StreamNeeds needs;
  if (!resolving) needs.port = request.port;
  needs.isolation = std::to_string(isolation.listener);
  if (isolation.socks_auth) needs.isolation += "\x1f" + socks::isolation_key(request);
  if (isolation.dest_port) needs.isolation += "\x1f" + std::to_string(request.port);
  if (isolation.dest_addr) needs.isolation += "\x1f" + socks::to_string(request.address);
  return needs;
}

// The SOCKS handshake up to the request, within the handshake deadline;
// nullopt when the client left, stalled or was refused (counted, logged).
// `early`: bytes the client sent after its request.
net::awaitable<std::optional<socks::Request>> read_request(net::tcp::socket& sock, SocksContext& ctx,
                                                           std::vector<std::uint8_t>& early) {
  socks::ServerHandshake hs;
  Watchdog watchdog(sock, ctx.clock.now() + ctx.limits.handshake_timeout);
  std::array<std::uint8_t, 512> buf{};
  for (;;) {
    auto [ec, n] = co_await sock.async_read_some(net::asio::buffer(buf), net::use_nothrow);
    if (ec || n == 0) {
      (void)hs.end_of_input();
      ++ctx.counters.socks_rejected;
      net::emit(ctx.log, net::LogLevel::Debug,
                watchdog.fired() ? "SOCKS handshake timed out" : "SOCKS client left during the handshake");
      co_return std::nullopt;
    }
    auto step = hs.feed(bytes::ByteSpan(buf.data(), n));
    if (!co_await write_all(sock, step.to_send)) co_return std::nullopt;
    if (step.status == socks::ServerHandshake::Step::Status::Close) {
      ++ctx.counters.socks_rejected;
      net::emit(ctx.log, net::LogLevel::Debug, "SOCKS request refused: " + step.error);
      co_return std::nullopt;
    }
    if (step.status == socks::ServerHandshake::Step::Status::Request && step.request) {
      early = std::move(step.early_data);
      co_return std::move(step.request);
    }
  }
}

// PerClientGuards: the stream's client, and whether it may have guards
// (a new client past PerClientGuardsMax may not: counted, logged, reported,
// and answered with a general failure).
net::awaitable<bool> admit_client(net::tcp::socket& sock, SocksContext& ctx, StreamReporter& report,
                                  const socks::Request& request, StreamNeeds& needs) {
  if (!ctx.admit_guard_client) co_return true;
  needs.guard_client = std::string(path::guard_client_name(request.username.value_or(std::string())));
  if (ctx.admit_guard_client(needs.guard_client)) co_return true;
  ++ctx.counters.streams_failed;
  // The name is the application's (a site, for Tor Browser): debug only.
  net::emit(ctx.log, net::LogLevel::Info, "Stream refused: PerClientGuardsMax clients have guards already");
  net::emit(ctx.log, net::LogLevel::Debug, "Stream refused for client " + needs.guard_client);
  report("FAILED", 0, "MISC");
  report("CLOSED", 0, "MISC");
  (void)co_await write_all(sock, failure_reply(request, socks::Reply::GeneralFailure));
  co_return false;
}

// tor's DisableNetwork 1 closes every stream not yet answered.
bool network_off(const SocksContext& ctx) { return ctx.network_disabled != nullptr && *ctx.network_disabled; }

// Why a stream waits longer than one attempt: at info, as it names no address.
void log_detached(SocksContext& ctx, const ClientStream& st, const std::string& carrier, const std::string& why) {
  net::emit(ctx.log, net::LogLevel::Info,
            "Stream " + std::to_string(st.id().value()) + " detached from " + carrier + ": " + why + "; trying again");
}

}  // namespace

net::awaitable<void> run_socks_session(net::tcp::socket socket, SocksContext& ctx, SocksIsolation isolation) {
  ++ctx.counters.socks_connections;
  auto session = std::make_shared<Session>(Session{std::move(socket), nullptr, false});
  auto& sock = session->socket;

  // 1. The SOCKS request, within the handshake deadline.
  std::vector<std::uint8_t> early;
  std::optional<socks::Request> request = co_await read_request(sock, ctx, early);
  if (!request) co_return;

  // 2. A stream on a circuit, retried on other exits when one refuses.
  const bool resolving = is_resolve(*request);
  StreamReporter report{ctx, new_stream_report(ctx, *request)};
  report(resolving ? "NEWRESOLVE" : "NEW");
  StreamNeeds needs = stream_needs(*request, isolation, resolving);
  if (!co_await admit_client(sock, ctx, report, *request, needs)) co_return;

  StreamPool& pool = *ctx.pool;
  const auto deadline = ctx.clock.now() + ctx.limits.socks_timeout;
  std::optional<cell::EndReason> last_end;
  std::string failure = "no circuit (or Conflux set) could be had in time";
  bool no_exit = false;
  for (unsigned attempt = 0; attempt < ctx.limits.max_attempts && !session->stream && !network_off(ctx); ++attempt) {
    StreamCarrier* circ = co_await pool.acquire(needs, deadline, &no_exit);
    if (circ == nullptr) {
      if (no_exit) failure = "no exit allows the port";
      break;
    }
    auto stream = std::make_shared<ClientStream>(
        sock.get_executor(), resolving ? proto::StreamKind::Resolve : proto::StreamKind::Connect, ctx.clock);
    const cell::RelayMsg opening = opening_message(*request);
    if (!stream->open_on(*circ, opening)) continue;
    pool.claim(*circ, needs.isolation);
    const std::uint64_t circ_id = circ->control_circuit_id();
    report(resolving ? "SENTRESOLVE" : "SENTCONNECT", circ_id);
    const std::string carrier = circ->name();  // `circ` may be gone when the attempt ends
    net::emit(ctx.log, net::LogLevel::Info,
              "Stream " + std::to_string(stream->id().value()) + " attached to " + carrier + " (attempt " + std::to_string(attempt + 1) + ")");
    const auto exit_id = circ->exit_identity();
    const auto attempt_deadline = std::min(deadline, ctx.clock.now() + ctx.limits.attempt_timeout);
    while (!stream->connected() && !stream->resolved() && !stream->peer_end() && !stream->failed() &&
           ctx.clock.now() < attempt_deadline) {
      co_await stream->rx_wakeup().wait_until(attempt_deadline);
    }
    if (stream->connected() || stream->resolved()) {
      session->stream = std::move(stream);
      report("SUCCEEDED", circ_id, {}, session->stream);
      break;
    }
    if (auto end = stream->peer_end()) {
      last_end = *end;
      ++ctx.counters.end_reasons[static_cast<std::size_t>(*end) & 31u];
      if (!worth_retrying(*end)) break;
      failure = "the exit refused the stream (" + std::string(reason_text(*end)) + ")";
      // Tor's rule: do not ask an exit that refused again for this stream.
      needs.avoid_exits.insert(exit_id);
    } else if (stream->circuit_gone()) {
      // Not the exit's doing (a relay on the way died): any exit may serve.
      failure = "the circuit closed";
    } else {
      // Tor's answer to a silent exit: the circuit takes no new streams,
      // the stream tries another circuit.
      failure = "the exit did not answer in time";
      if (StreamCarrier* slow = stream->circuit()) pool.retire(*slow);
      stream->close(cell::EndReason::Timeout);
    }
    ++ctx.counters.stream_retries;
    log_detached(ctx, *stream, carrier, failure);
    report("DETACHED", circ_id, last_end ? reason_text(*last_end) : "TIMEOUT");
  }

  if (!session->stream) {
    const auto reply = stream_failed(ctx, report, last_end, no_exit, failure, deadline);
    (void)co_await write_all(sock, failure_reply(*request, reply));
    co_return;
  }

  // 3. Success: answer, then carry bytes until either side ends.
  ++ctx.counters.streams_opened;
  auto& st = *session->stream;
  if (resolving) {
    (void)co_await write_all(sock, resolved_reply(*request, *st.resolved()));
    st.close(cell::EndReason::Done);
    report("CLOSED", 0, "DONE");
    co_return;
  }
  if (!co_await write_all(sock, success_reply(*request))) {
    report("CLOSED", 0, "DONE");
    co_return;
  }
  ++ctx.counters.streams_active;
  net::asio::co_spawn(sock.get_executor(), uplink(session, ctx, std::move(early)), net::asio::detached);
  co_await downlink(session, ctx);
  count_stream_end(ctx.counters, st);
  StreamCarrier* circ = st.circuit();
  report("CLOSED", circ != nullptr ? circ->control_circuit_id() : 0, st.peer_end() ? reason_text(*st.peer_end()) : "DONE");
  st.close(cell::EndReason::Done);
  if (circ != nullptr) pool.stream_done(*circ);
}

}  // namespace conflux::client
