// Relay messages in, per-circuit stream tables, limits, and the helpers
// every path shares (sending, failing, finishing).
#include <algorithm>
#include <string>

#include "exit_impl.hpp"

namespace conflux::exit {

namespace {

PumpLimits pump_limits(const ExitLimits& limits, const ExitConfig& cfg) {
  PumpLimits p;
  p.cc = cfg.congestion_control;
  p.clock_health = cfg.clock_health;
  p.read_cells = std::max<std::size_t>(limits.read_cells, 1);
  p.max_upstream_bytes = limits.max_upstream_bytes;
  return p;
}

}  // namespace

Stream::Stream(asio::io_context& io, proto::CircuitHandle c, StreamId s, proto::StreamKind kind, StreamRef r)
    : circuit(c),
      id(s),
      ref(r),
      resolve_only(kind == proto::StreamKind::Resolve),
      dir(kind == proto::StreamKind::Dir),
      socket(io),
      timer(io) {}

ExitStreams::Impl::Impl(asio::io_context& io_ctx, proto::CircuitOutput& output, ExitConfig config)
    : io(io_ctx),
      out(output),
      cfg(std::move(config)),
      dns(io_ctx, cfg.dns, cfg.limits.max_pending_dns),
      pump(pump_limits(cfg.limits, cfg)) {}

proto::CcClock::time_point ExitStreams::Impl::now() const {
  return cfg.now ? cfg.now() : proto::CcClock::time_point{};
}

ExitStreams::Impl::~Impl() {
  std::vector<StreamPtr> all;
  for (auto& [h, c] : circuits)
    for (auto& [id, s] : c.streams) all.push_back(s);
  all.insert(all.end(), closing.begin(), closing.end());
  for (auto& s : all) finish(s);
}

void ExitStreams::Impl::log(LogLevel level, std::string_view text) const {
  if (cfg.log) cfg.log(level, text);
}

void ExitStreams::Impl::arm_timer(const StreamPtr& s, std::chrono::milliseconds after,
                                  void (Impl::*on_expire)(StreamPtr)) {
  s->timer.expires_after(after);
  s->timer.async_wait([this, s, phase = s->phase, on_expire](const boost::system::error_code& ec) {
    if (ec || s->closed || s->phase != phase) return;
    (this->*on_expire)(s);
  });
}

// ---- messages ----------------------------------------------------------------

void ExitStreams::Impl::on_message(proto::CircuitHandle c, StreamId id, cell::RelayMsg msg) {
  std::visit(Overloaded{
                 [&](cell::BeginMsg& m) { on_begin(c, id, m); },
                 [&](cell::BeginDirMsg&) { on_begin_dir(c, id); },
                 [&](cell::DataMsg& m) { on_data(c, id, std::move(m.data)); },
                 [&](cell::EndMsg& m) { on_end(c, id, m.reason); },
                 [&](cell::SendmeMsg&) { on_sendme(c, id); },
                 [&](cell::XoffMsg&) { on_xon_xoff(c, id, std::nullopt); },
                 [&](cell::XonMsg& m) { on_xon_xoff(c, id, m); },
                 [&](cell::ResolveMsg& m) { on_resolve(c, id, std::move(m.name)); },
                 [&](cell::ConnectedMsg&) { on_wrong_direction(c, id, true); },
                 [&](cell::ResolvedMsg&) { on_wrong_direction(c, id, false); },
                 // Conflux and circuit commands: nothing for streams. tor drops them.
                 [&](auto&) { ++counters.cells_dropped; },
             },
             msg);
}

void ExitStreams::Impl::on_begin(proto::CircuitHandle c, StreamId id, const cell::BeginMsg& m) {
  if (id == StreamId{0} || find(c, id)) {
    // tor drops a BEGIN for a stream it knows ("Begin cell for known
    // stream. Dropping.") and keeps the circuit; so do we.
    ++counters.cells_dropped;
    ++counters.protocol_violations;
    log(LogLevel::Info, "BEGIN on stream 0 or on a stream in use: dropped");
    return;
  }
  ++counters.begins;
  if (cfg.mode == ExitMode::NotExit) return refuse(c, id, cell::EndReason::ExitPolicy);
  if (attached_on(c) >= cfg.limits.max_streams_per_circuit || total >= cfg.limits.max_streams_total) {
    log(LogLevel::Info, "BEGIN refused: stream limit reached");
    return refuse(c, id, cell::EndReason::ResourceLimit);
  }
  const FamilyChoice families = family_choice(m.flags, cfg.ipv6_exit);
  // tor: "If you don't want IPv4, I can't help" (without IPv6Exit).
  if (!families.any()) return refuse(c, id, cell::EndReason::ExitPolicy);

  if (m.kind != cell::BeginAddrKind::Hostname) {
    // tor connects to a literal address whatever the flags say.
    auto addr = parse_ip_literal(m.host);
    if (!addr) return refuse(c, id, cell::EndReason::TorProtocol);
    StreamPtr s = add_stream(c, id, proto::StreamKind::Connect);
    s->port = m.port;
    s->flags = m.flags;
    s->addr = *addr;
    s->ttl = cfg.literal_ttl;
    log(LogLevel::Debug, "stream " + std::to_string(id.value()) + ": BEGIN " + m.host + ":" + std::to_string(m.port));
    return connect_checked(s);
  }
  if (is_unresolvable_name(m.host)) return refuse(c, id, cell::EndReason::ResolveFailed);
  // Refuse before any lookup when no address could be accepted on this port.
  if (cfg.policy.check_port(m.port, families.only_family()) == proto::PortVerdict::Rejected) {
    log(LogLevel::Info, "BEGIN refused by the exit policy (port)");
    return refuse(c, id, cell::EndReason::ExitPolicy);
  }
  if (!cfg.dns.allow_non_rfc953 && !is_rfc953_name(m.host)) {
    log(LogLevel::Info, "BEGIN refused: invalid destination name (ServerDNSAllowNonRFC953Hostnames)");
    return refuse(c, id, cell::EndReason::ResolveFailed);
  }
  StreamPtr s = add_stream(c, id, proto::StreamKind::Connect);
  s->port = m.port;
  s->flags = m.flags;
  log(LogLevel::Debug, "stream " + std::to_string(id.value()) + ": BEGIN " + m.host + ":" + std::to_string(m.port));
  start_lookup(s, m.host);
}

void ExitStreams::Impl::on_begin_dir(proto::CircuitHandle c, StreamId id) {
  if (id == StreamId{0} || find(c, id)) {
    ++counters.cells_dropped;
    ++counters.protocol_violations;
    return;
  }
  ++counters.begin_dirs;
  // Neither ExitRelay nor the exit policy matter: the stream goes to our
  // own DirPort, never to the Internet. tor serves BEGIN_DIR on any circuit
  // (clients use one-hop circuits for it); the switch hands us only
  // streams for which we are the last hop.
  if (!cfg.dir_port) return refuse(c, id, cell::EndReason::NotDirectory);
  if (attached_on(c) >= cfg.limits.max_streams_per_circuit || total >= cfg.limits.max_streams_total) {
    log(LogLevel::Info, "BEGIN_DIR refused: stream limit reached");
    return refuse(c, id, cell::EndReason::ResourceLimit);
  }
  StreamPtr s = add_stream(c, id, proto::StreamKind::Dir);
  s->addr = cfg.dir_port->addr;
  s->port = cfg.dir_port->port;
  log(LogLevel::Debug, "stream " + std::to_string(id.value()) + ": BEGIN_DIR");
  start_connect(s);
}

void ExitStreams::Impl::on_resolve(proto::CircuitHandle c, StreamId id, std::string name) {
  if (id == StreamId{0} || find(c, id)) {
    ++counters.cells_dropped;  // tor: "resolve request for known stream; dropping"
    return;
  }
  ++counters.resolves;
  auto reply = [&](const cell::ResolvedMsg& msg) {
    if (!out.send_to_client(c, id, msg)) drop_circuit(c);
  };
  // A non-exit does no lookups at all (tor: "If we're a non-exit, don't even
  // do DNS lookups").
  if (cfg.mode == ExitMode::NotExit) return reply(resolved_error(LookupFailure::NotFound, cfg.dns_ttl));
  if (attached_on(c) >= cfg.limits.max_streams_per_circuit || total >= cfg.limits.max_streams_total) {
    return reply(resolved_error(LookupFailure::Transient, cfg.dns_ttl));
  }
  StreamPtr s = add_stream(c, id, proto::StreamKind::Resolve);
  log(LogLevel::Debug, "stream " + std::to_string(id.value()) + ": RESOLVE " + name);
  start_resolve_request(s, name);
}

void ExitStreams::Impl::on_data(proto::CircuitHandle c, StreamId id, std::vector<std::uint8_t> data) {
  StreamPtr s = find(c, id);
  if (!s || s->resolve_only) {
    ++counters.cells_dropped;  // tor-spec 6.2: DATA for unrecognized streams is dropped
    return;
  }
  pump.client_data(s->ref, std::move(data), now());
  run();
}

void ExitStreams::Impl::on_end(proto::CircuitHandle c, StreamId id, cell::EndReason reason) {
  StreamPtr s = find(c, id);
  if (!s) {
    ++counters.cells_dropped;
    return;
  }
  ++counters.ends_received;
  pump.client_end(s->ref, reason);
  run();
}

void ExitStreams::Impl::on_sendme(proto::CircuitHandle c, StreamId id) {
  StreamPtr s = find(c, id);
  if (!s || s->resolve_only) {
    ++counters.cells_dropped;
    return;
  }
  pump.client_sendme(s->ref);
  run();
}

void ExitStreams::Impl::on_xon_xoff(proto::CircuitHandle c, StreamId id, std::optional<cell::XonMsg> xon) {
  StreamPtr s = find(c, id);
  if (!s || s->resolve_only) {
    ++counters.cells_dropped;
    return;
  }
  // The pump ignores them on a stream without congestion control, as tor does.
  if (xon) {
    ++counters.xons_received;
    pump.client_xon(s->ref, *xon, now());
  } else {
    ++counters.xoffs_received;
    pump.client_xoff(s->ref);
  }
  run();
}

void ExitStreams::Impl::on_wrong_direction(proto::CircuitHandle c, StreamId id, bool connected) {
  StreamPtr s = find(c, id);
  if (!s) {
    ++counters.cells_dropped;
    return;
  }
  pump.client_wrong_direction(s->ref, connected);
  run();
}

void ExitStreams::Impl::on_writable(proto::CircuitHandle c) {
  if (!circuits.contains(c)) return;
  // Not answered here: this may come while Sends of an earlier answer are
  // still in the batch run() is carrying out (a cell sent on a Conflux set
  // frees a leg); the pump's CheckWritable comes after them.
  pump.circuit_reopened(c);
  run();
}

// ---- tables --------------------------------------------------------------------

StreamPtr ExitStreams::Impl::find(proto::CircuitHandle c, StreamId id) const {
  auto it = circuits.find(c);
  if (it == circuits.end()) return nullptr;
  auto sit = it->second.streams.find(id);
  return sit == it->second.streams.end() ? nullptr : sit->second;
}

std::size_t ExitStreams::Impl::attached_on(proto::CircuitHandle c) const {
  auto it = circuits.find(c);
  return it == circuits.end() ? 0 : it->second.streams.size();
}

StreamPtr ExitStreams::Impl::add_stream(proto::CircuitHandle c, StreamId id, proto::StreamKind kind) {
  auto s = std::make_shared<Stream>(io, c, id, kind, pump.add(c, id, kind, out.uses_congestion_control(c)));
  circuits[c].streams.emplace(id, s);
  by_ref.emplace(s->ref, s);
  ++total;
  ++pending;
  return s;
}

void ExitStreams::Impl::refuse(proto::CircuitHandle c, StreamId id, cell::EndReason reason,
                               std::optional<cell::RelayAddrTtl> addr) {
  ++counters.ends_sent[end_reason_slot(reason)];
  if (!out.send_to_client(c, id, cell::EndMsg{reason, addr})) drop_circuit(c);
}

bool ExitStreams::Impl::send(const StreamPtr& s, const cell::RelayMsg& msg) {
  if (out.send_to_client(s->circuit, s->id, msg)) return true;
  const proto::CircuitHandle c = s->circuit;
  drop_circuit(c);
  finish(s);  // in case it was no longer in the circuit's table
  if (out.client_channel(c)) {
    // Refused although the circuit is there (DATA beyond its window: a bug
    // here): its streams are gone, so the circuit goes too rather than leave
    // the client's streams waiting for cells that will never come.
    log(LogLevel::Warn, "a live circuit refused a cell: closing it");
    out.close_circuit(c, cell::DestroyReason::Internal);
  } else {
    log(LogLevel::Info, "circuit gone while sending: dropping its streams");
  }
  return false;
}

bool ExitStreams::Impl::send_end(const StreamPtr& s, cell::EndReason reason,
                                 std::optional<cell::RelayAddrTtl> addr) {
  ++counters.ends_sent[end_reason_slot(reason)];
  return send(s, cell::EndMsg{reason, addr});
}

void ExitStreams::Impl::kill_circuit(proto::CircuitHandle c) {
  ++counters.circuits_killed;
  // Forget the streams first: closing may call back into on_circuit_closed.
  drop_circuit(c);
  out.close_circuit(c, cell::DestroyReason::Protocol);
}

void ExitStreams::Impl::drop_circuit(proto::CircuitHandle c) {
  auto it = circuits.find(c);
  if (it == circuits.end()) return;
  std::vector<StreamPtr> streams;
  for (auto& [id, s] : it->second.streams) streams.push_back(s);
  circuits.erase(it);
  pump.circuit_closed(c);
  for (auto& s : streams) {
    if (s->connected) --open;
    s->attached = false;
    s->connected = false;
    finish(s);
  }
}

void ExitStreams::Impl::unlink(const StreamPtr& s) {
  auto it = circuits.find(s->circuit);
  if (it == circuits.end()) return;
  auto sit = it->second.streams.find(s->id);
  if (sit != it->second.streams.end() && sit->second == s) it->second.streams.erase(sit);
  if (it->second.streams.empty()) circuits.erase(it);
}

void ExitStreams::Impl::detach(const StreamPtr& s) {
  StreamPtr keep = s;
  if (!keep->attached) return;
  unlink(keep);
  keep->attached = false;
  if (keep->connected) --open;
  keep->connected = false;
  closing.insert(keep);
}

void ExitStreams::Impl::finish(const StreamPtr& s) {
  StreamPtr keep = s;
  if (keep->closed) return;
  keep->closed = true;
  if (keep->phase == Phase::Resolving || keep->phase == Phase::Connecting) --pending;
  dns_done(keep);
  if (keep->attached) {
    if (keep->connected) --open;
    unlink(keep);
    keep->attached = false;
  } else {
    closing.erase(keep);
  }
  --total;
  pump.remove(keep->ref);
  by_ref.erase(keep->ref);
  boost::system::error_code ignored;
  keep->timer.cancel();
  keep->socket.close(ignored);
}

void ExitStreams::Impl::fail(const StreamPtr& s, cell::EndReason reason, std::optional<cell::RelayAddrTtl> addr) {
  StreamPtr keep = s;
  pump.remove(keep->ref);
  if (send_end(keep, reason, addr)) finish(keep);
}

// ---- the public face ----------------------------------------------------------

ExitStreams::ExitStreams(boost::asio::io_context& io, proto::CircuitOutput& output, ExitConfig config)
    : impl_(std::make_unique<Impl>(io, output, std::move(config))) {}

ExitStreams::~ExitStreams() = default;

void ExitStreams::on_stream_message(proto::CircuitHandle circuit, StreamId stream, cell::RelayMsg msg) {
  impl_->on_message(circuit, stream, std::move(msg));
}

void ExitStreams::on_circuit_writable(proto::CircuitHandle circuit) { impl_->on_writable(circuit); }

void ExitStreams::on_circuit_closed(proto::CircuitHandle circuit, cell::DestroyReason /*reason*/) {
  impl_->drop_circuit(circuit);
}

std::size_t ExitStreams::buffered_bytes() const { return impl_->pump.buffered_bytes(); }

std::vector<proto::BufferedCircuit> ExitStreams::buffered_circuits() const { return impl_->pump.buffered_circuits(); }

void ExitStreams::set_policy(proto::ExitPolicy policy) { impl_->cfg.policy = std::move(policy); }

bool ExitStreams::set_dns(const DnsSettings& dns) {
  if (!impl_->dns.reconfigure(dns)) return false;
  impl_->cfg.dns = dns;
  return true;
}

void ExitStreams::clear_dns_cache() { impl_->dns.clear_cache(); }

void ExitStreams::set_dir_port(std::optional<DirPortTarget> target) { impl_->cfg.dir_port = target; }

void ExitStreams::set_cc_params(const proto::CcParams& params) {
  impl_->cfg.congestion_control = params;
  impl_->pump.set_cc_params(params);
}

ExitStats ExitStreams::stats() const {
  ExitStats s = impl_->counters;
  s.streams_pending = impl_->pending;
  s.streams_open = impl_->open;
  s.streams_closing = impl_->closing.size();
  s.dns_pending = impl_->dns_pending;
  return s;
}

std::size_t ExitStreams::streams_on(proto::CircuitHandle circuit) const { return impl_->attached_on(circuit); }

std::size_t ExitStreams::stream_count() const { return impl_->total; }

}  // namespace conflux::exit
