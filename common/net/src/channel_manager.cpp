#include "conflux/net/channel_manager.hpp"

#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>

#include "conflux/cell/destroy_cell.hpp"
#include "conflux/crypto/random.hpp"
#include "conflux/net/tls.hpp"

namespace conflux::net {
namespace {

asio::ssl::context server_context(const keys::RelayKeys& keys) {
  const auto& tls = keys.tls_certificate();
  TlsIdentity id{tls.cert_pem, tls.key_pem.str()};
  auto ctx = make_tls_server_context(id);
  crypto::secure_wipe(id.key_pem.data(), id.key_pem.size());
  return ctx;
}

std::size_t reason_slot(cell::DestroyReason r) {
  const auto v = static_cast<std::size_t>(r);
  return v < RuntimeCounters::kReasonSlots - 1 ? v : RuntimeCounters::kReasonSlots - 1;
}

}  // namespace

proto::LinkCredentials link_credentials(const keys::RelayKeys& keys) {
  return proto::LinkCredentials{keys.identity(),
                                keys.signing_cert_bytes(),
                                keys.tls_link_cert_bytes(),
                                keys.link_auth_cert_bytes(),
                                keys.link_auth_key(),
                                keys.rsa_link_cert_bytes(),
                                keys.rsa_identity_cert_bytes(),
                                keys.rsa_crosscert_bytes(),
                                crypto::sha256(keys.rsa_identity().public_key().der())};
}

proto::CircuitSwitchConfig switch_config(const ChannelManagerConfig& config, const Clock& clock,
                                         std::function<proto::CcChannelState(proto::ChannelId, CircId)> channel_state) {
  proto::CircuitSwitchConfig c;
  c.max_circuits_per_channel = config.max_circuits_per_channel;
  c.max_pending_extends = config.max_pending_extends;
  c.cc = config.congestion_control;
  c.clock_health = config.clock_health;
  // The one injected clock: congestion control stamps DATA cells and times
  // SENDMEs with it (Clock::Monotonic is the steady clock CcClock names).
  c.now = [&clock] { return clock.now(); };
  c.channel_state = std::move(channel_state);
  return c;
}

proto::CircuitSwitchKeys circuit_switch_keys(const keys::RelayKeys& keys) {
  std::optional<crypto::X25519Secret> previous;
  if (keys.previous_onion_key()) previous = keys.previous_onion_key()->key;
  return proto::CircuitSwitchKeys{
      crypto::NtorServerKeys{keys.rsa_fingerprint(), keys.onion_key().key, previous},
      crypto::NtorV3ServerKeys{keys.identity(), keys.onion_key().key, previous}};
}

ChannelManager::ChannelManager(asio::io_context& io, const Clock& clock, const keys::RelayKeys& keys,
                               proto::ExitHandler* exit, ChannelManagerConfig config, LogSink log)
    : io_(io),
      clock_(clock),
      keys_(keys),
      exit_(exit),
      config_(std::move(config)),
      log_(std::move(log)),
      server_tls_(server_context(keys)),
      client_tls_(make_tls_client_context()),
      bucket_(config_.bandwidth_rate == 0
                  ? std::nullopt
                  : std::optional<proto::TokenBucket>(std::in_place, config_.bandwidth_rate,
                                                      config_.bandwidth_burst, clock.now())),
      scheduler_(io, clock, bucket_ ? &*bucket_ : nullptr, config_.scheduler),
      queue_limit_(config_.max_mem_in_queues),
      dos_(config_.dos, config_.dos_max_addresses,
           [](std::uint32_t lo, std::uint32_t hi) {
             return lo + static_cast<std::uint32_t>(crypto::random_uniform(std::uint64_t{hi} - lo + 1));
           }),
      switch_(circuit_switch_keys(keys),
              switch_config(config_, clock, [this](proto::ChannelId ch, CircId id) { return channel_state(ch, id); })),
      acceptor_(io),
      idle_timer_(io) {
  arm_idle_timer();
}

ChannelManager::~ChannelManager() {
  shutting_down_ = true;
  life_.reset();
  boost::system::error_code ignored;
  acceptor_.close(ignored);
  idle_timer_.cancel();
  // Each LinkChannel closes its socket as it goes, without calling back.
  channels_.clear();
}

std::optional<tcp::endpoint> ChannelManager::listen(const tcp::endpoint& where, boost::system::error_code& ec) {
  ec.clear();
  if (acceptor_.is_open()) acceptor_.close(ec);
  acceptor_.open(where.protocol(), ec);
  if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_.bind(where, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    return std::nullopt;
  }
  auto bound = acceptor_.local_endpoint(ec);
  if (ec) return std::nullopt;
  asio::co_spawn(io_, accept_loop(life_), asio::detached);
  return bound;
}

void ChannelManager::stop_listening() {
  boost::system::error_code ignored;
  acceptor_.close(ignored);
}

awaitable<void> ChannelManager::accept_loop(std::weak_ptr<int> life) {
  asio::steady_timer backoff(io_);
  for (;;) {
    auto [ec, socket] = co_await acceptor_.async_accept(use_nothrow);
    if (life.expired()) co_return;
    if (ec == asio::error::operation_aborted || !acceptor_.is_open()) co_return;
    if (ec) {
      // Out of descriptors and the like: pause instead of spinning.
      log(LogLevel::Warn, "accept failed: " + ec.message());
      backoff.expires_after(std::chrono::milliseconds(100));
      co_await backoff.async_wait(use_nothrow);
      if (life.expired()) co_return;
      continue;
    }
    std::optional<proto::DosAddress> peer;
    if (channels_in_use() >= config_.max_channels || !dos_accept(socket, peer)) {
      if (channels_in_use() >= config_.max_channels) ++counters_.channels_rejected;
      boost::system::error_code ignored;
      socket.close(ignored);
      continue;
    }
    set_link_socket_options(socket);
    auto link = adopt(std::move(socket), false, next_orconn_id_++, std::nullopt, std::nullopt, peer);
    if (const Entry* e = find(link->id())) report(*e, ChannelReport::Status::New);
  }
}

void ChannelManager::set_circuit_priority(proto::CircuitPriority priority) {
  config_.channel_limits.priority = priority;
  for (auto& [id, e] : channels_) e.link->channel().mux().set_priority(priority);
}

void ChannelManager::set_cc_params(const proto::CcParams& params) {
  config_.congestion_control = params;
  switch_.set_cc_params(params);
  for (auto& [id, e] : channels_) set_block_watermarks(e.link->channel().mux());
}

void ChannelManager::set_block_watermarks(proto::CircuitMux& mux) const {
  const auto& cc = config_.congestion_control;
  mux.set_block_watermarks(static_cast<std::size_t>(cc.cellq_high), static_cast<std::size_t>(cc.cellq_low));
}

proto::CcChannelState ChannelManager::channel_state(proto::ChannelId chan, CircId circ) {
  Entry* e = find(chan);
  if (e == nullptr || !e->open) return {};
  const auto& mux = e->link->channel().mux();
  return proto::CcChannelState{mux.circuit_blocked(circ), mux.queued_cells(circ)};
}

LinkChannel::Params ChannelManager::link_params(Channel::Role role, std::optional<crypto::Ed25519Public> expected,
                                                std::optional<crypto::RsaFingerprint> expected_rsa) const {
  LinkChannel::Params p;
  p.role = role;
  p.expected_peer = expected;
  p.expected_rsa = expected_rsa;
  p.credentials = link_credentials(keys_);
  p.our_addresses = config_.advertised_addresses;
  p.handshake_timeout = config_.handshake_timeout;
  p.channel_limits = config_.channel_limits;
  p.channel_limits.gauge = gauge_;
  return p;
}

std::shared_ptr<LinkChannel> ChannelManager::adopt(tcp::socket socket, bool outbound, std::uint64_t orconn_id,
                                                   std::optional<crypto::Ed25519Public> expected,
                                                   std::optional<crypto::RsaFingerprint> expected_rsa,
                                                   std::optional<proto::DosAddress> peer) {
  auto& ctx = outbound ? client_tls_ : server_tls_;
  const auto role = outbound ? Channel::Role::Initiator : Channel::Role::Responder;
  boost::system::error_code ec;
  const auto remote = socket.remote_endpoint(ec);
  auto link = LinkChannel::create(TlsStream(std::move(socket), ctx), scheduler_, clock_, *this,
                                  link_params(role, expected, expected_rsa), log_);
  set_block_watermarks(link->channel().mux());
  Entry e{link, outbound, false, expected, expected_rsa, clock_.now(), false, peer, false, false, orconn_id, std::nullopt};
  if (!ec) e.remote = remote;
  channels_.emplace(link->id(), std::move(e));
  link->start();
  return link;
}

std::size_t ChannelManager::channels_in_use() const {
  std::size_t n = channels_.size();
  for (const auto& [identity, pending] : connecting_)
    if (!pending.channel) ++n;  // a connect with a channel is counted in channels_
  return n;
}

ChannelManager::Entry* ChannelManager::find(std::uint64_t id) {
  auto it = channels_.find(id);
  return it == channels_.end() ? nullptr : &it->second;
}

// ---- channel events ----------------------------------------------------------

void ChannelManager::on_link_open(LinkChannel& link) {
  Entry* e = find(link.id());
  if (e == nullptr) return;
  e->open = true;
  e->last_active = clock_.now();
  // What the handshake proved (an unauthenticated initiator proves nothing).
  e->identity = link.peer_identity();
  e->rsa = e->identity ? link.peer_rsa_identity() : std::nullopt;
  ++counters_.channels_opened;
  if (e->outbound) ++counters_.channels_opened_outbound;
  dos_channel_open(*e);
  switch_.on_channel_open(link.id(), e->outbound ? proto::ChannelRole::Initiator : proto::ChannelRole::Responder);
  report(*e, ChannelReport::Status::Connected);
  index_open_channel(link.id(), *e);
  run_actions();
}

void ChannelManager::index_open_channel(std::uint64_t id, const Entry& e) {
  // The first open channel to a relay serves its extends; a second one
  // (both sides connected at once) idles out.
  if (e.identity) {
    auto [pos, inserted] = by_identity_.try_emplace(*e.identity, id);
    if (!inserted && find(pos->second) == nullptr) pos->second = id;
    answer_waiters(*e.identity, pos->second, cell::DestroyReason::None);
  }
  if (e.rsa) {
    auto [pos, inserted] = by_rsa_.try_emplace(*e.rsa, id);
    if (!inserted && find(pos->second) == nullptr) pos->second = id;
    answer_waiters(*e.rsa, pos->second, cell::DestroyReason::None);
  }
}

void ChannelManager::unindex_channel(std::uint64_t id, const Entry& e) {
  // Another open channel to the same relay takes over, if there is one.
  auto takeover = [&](auto& index, const auto& key, auto same) {
    auto pos = index.find(key);
    if (pos == index.end() || pos->second != id) return;
    index.erase(pos);
    for (auto& [other, oe] : channels_)
      if (oe.open && same(oe)) {
        index.emplace(key, other);
        break;
      }
  };
  if (e.identity) takeover(by_identity_, *e.identity, [&](const Entry& oe) { return oe.identity == e.identity; });
  if (e.rsa) takeover(by_rsa_, *e.rsa, [&](const Entry& oe) { return oe.rsa == e.rsa; });
}

void ChannelManager::on_link_cell(LinkChannel& link, const cell::CellView& c) {
  Entry* e = find(link.id());
  if (e == nullptr || !e->open) return;
  ++counters_.cells_in;
  e->active = true;
  if (e->client && dos_refuse_create(link.id(), *e, c)) return;
  report_create(*e, c);
  // Inside a read chunk: the cells this one makes us send take its time.
  in_link_cell_ = true;
  switch_.on_cell(link.id(), c);
  run_actions();
  in_link_cell_ = false;
}

void ChannelManager::on_link_unblocked(LinkChannel& link, std::span<const CircId> circs) {
  Entry* e = find(link.id());
  if (e == nullptr || !e->open) return;
  for (const CircId circ : circs) switch_.on_circuit_unblocked(link.id(), circ);
  run_actions();
}

void ChannelManager::on_link_bytes(LinkChannel&, std::size_t n, bool inbound) {
  // A channel read a chunk; its cells follow at once (Channel::read_loop).
  if (inbound) chunk_now_ = clock_.now();
  (inbound ? counters_.bytes_in : counters_.bytes_out) += n;
}

void ChannelManager::on_link_closed(LinkChannel& link, std::string_view reason) {
  if (shutting_down_) return;
  const std::uint64_t id = link.id();
  auto it = channels_.find(id);
  if (it == channels_.end()) return;
  Entry e = std::move(it->second);
  channels_.erase(it);
  ++counters_.channels_closed;
  if (e.dos_counted && e.peer) dos_.client_connection_closed(*e.peer);
  std::size_t waiting = 0;
  if (!e.open && e.outbound && (e.identity || e.rsa)) {
    auto pending = connecting_.find(e.identity ? RelayKey{*e.identity} : RelayKey{*e.rsa});
    if (pending != connecting_.end() && pending->second.channel == id) waiting = pending->second.requests.size();
  }
  report_closed(id, e, link, reason, waiting);
  if (e.open) {
    unindex_channel(id, e);
    switch_.on_channel_closed(id);
  } else {
    ++counters_.handshake_failures;
    log(LogLevel::Info, std::string("channel closed before its handshake finished: ") + std::string(reason));
    if (e.outbound && (e.identity || e.rsa)) {
      // Filed as connect_key() filed it: Ed25519 identity if expected.
      const RelayKey key = e.identity ? RelayKey{*e.identity} : RelayKey{*e.rsa};
      auto pending = connecting_.find(key);
      if (pending != connecting_.end() && pending->second.channel == id) {
        const bool wrong_relay = link.failure() == proto::LinkFailure::IdentityMismatch;
        answer_waiters(key, std::nullopt,
                       wrong_relay ? cell::DestroyReason::OrIdentity : cell::DestroyReason::ConnectFailed);
      }
    }
  }
  run_actions();
}

// ---- the switch's actions ----------------------------------------------------

void ChannelManager::run_actions() {
  // A call made while an action runs (its handling called the switch again)
  // leaves the new actions in the switch: the outer loop takes them right
  // after that action, so they still run in order, and actions_ does not
  // move under the action being executed.
  if (draining_) return;
  draining_ = true;
  switch_.take_actions(actions_);
  for (std::size_t i = 0; i < actions_.size(); ++i) {
    execute(actions_[i]);
    switch_.take_actions(actions_);
  }
  actions_.clear();  // keeps its storage for the next cell
  draining_ = false;
  check_queue_memory();
}

void ChannelManager::execute(proto::SwitchAction& action) {
  std::visit(
      [&](auto& a) {
        using T = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<T, proto::SendCell>) {
          send_cell(a);
        } else if constexpr (std::is_same_v<T, proto::SendDestroy>) {
          send_destroy(a.chan, a.circ, a.reason);
        } else if constexpr (std::is_same_v<T, proto::OpenChannel>) {
          open_channel(a);
        } else if constexpr (std::is_same_v<T, proto::DeliverStreamMessage>) {
          if (exit_ != nullptr && dos_stream_allowed(a)) exit_->on_stream_message(a.circuit, a.stream, std::move(a.msg));
        } else if constexpr (std::is_same_v<T, proto::CircuitWritable>) {
          if (exit_ != nullptr) exit_->on_circuit_writable(a.circuit);
        } else if constexpr (std::is_same_v<T, proto::CircuitSendme>) {
          if (exit_ != nullptr) exit_->on_circuit_sendme(a.circuit);
        } else if constexpr (std::is_same_v<T, proto::CircuitClosed>) {
          ++counters_.circuits_destroyed_by_reason[reason_slot(a.reason)];
          dos_.circuit_closed(a.circuit);
          if (exit_ != nullptr) exit_->on_circuit_closed(a.circuit, a.reason);
        }
      },
      action);
}

void ChannelManager::send_cell(const proto::SendCell& s) {
  Entry* e = find(s.chan);
  if (e == nullptr || !e->open) return;  // the switch hears of the closed channel on its own
  switch (e->link->send_cell(s.circ, s.cell, in_link_cell_ ? std::optional(chunk_now_) : std::nullopt)) {
    case proto::MuxPush::Queued:
      ++counters_.cells_out;
      e->active = true;
      return;
    case proto::MuxPush::ControlQueueFull:
      return;
    case proto::MuxPush::CircuitQueueFull: {
      // The peer does not read this circuit fast enough (tor's
      // circ_max_cell_queue_size): the circuit goes, with RESOURCELIMIT both
      // ways. The switch sees it as a DESTROY from this side and answers the
      // other side itself.
      ++counters_.circuit_queue_overflows;
      dos_queue_filled(s.chan, s.circ);
      const std::array<std::uint8_t, 1> body{static_cast<std::uint8_t>(cell::DestroyReason::ResourceLimit)};
      switch_.on_cell(s.chan, cell::CellView{s.circ, cell::CellCommand::Destroy, body});
      send_destroy(s.chan, s.circ, cell::DestroyReason::ResourceLimit);
      return;
    }
  }
}

void ChannelManager::send_destroy(std::uint64_t chan, CircId circ, cell::DestroyReason reason) {
  Entry* e = find(chan);
  if (e == nullptr || !e->open) return;
  // Cells still queued for a dead circuit would only be dropped by the peer.
  e->link->channel().mux().detach(circ);
  auto body = cell::encode_destroy_cell(cell::DestroyCell{reason});
  if (!e->link->send_control(circ, cell::CellCommand::Destroy, body)) {
    // The peer stopped reading channel-level cells: give up on the channel.
    auto link = e->link;
    link->close("control queue full");
    return;
  }
  ++counters_.cells_out;
}

// ---- idle channels, queries, CircuitOutput -------------------------------------

void ChannelManager::arm_idle_timer() {
  // Check a few times per idle period, within sane bounds.
  auto period = config_.idle_timeout / 4;
  period = std::clamp<std::chrono::milliseconds>(period, std::chrono::milliseconds(10), std::chrono::seconds(15));
  idle_timer_.expires_after(period);
  idle_timer_.async_wait([this, life = std::weak_ptr<int>(life_)](const boost::system::error_code& ec) {
    if (ec || life.expired()) return;
    close_idle_channels();
    arm_idle_timer();
  });
}

void ChannelManager::close_idle_channels() {
  const auto now = clock_.now();
  std::vector<std::shared_ptr<LinkChannel>> idle;
  for (auto& [id, e] : channels_) {
    if (!e.open) continue;
    if (switch_.circuits_on(id) > 0 || std::exchange(e.active, false)) {
      e.last_active = now;
    } else if (now - e.last_active >= config_.idle_timeout) {
      idle.push_back(e.link);
    }
  }
  for (auto& link : idle) {
    ++counters_.channels_closed_idle;
    link->close("idle");
  }
}

std::optional<std::uint64_t> ChannelManager::channel_to(const crypto::Ed25519Public& identity) const {
  auto it = by_identity_.find(identity);
  if (it == by_identity_.end()) return std::nullopt;
  auto e = channels_.find(it->second);
  if (e == channels_.end() || !e->second.open || !e->second.link->is_open()) return std::nullopt;
  return it->second;
}

std::optional<std::uint64_t> ChannelManager::channel_to_rsa(const crypto::RsaFingerprint& rsa) const {
  auto it = by_rsa_.find(rsa);
  if (it == by_rsa_.end()) return std::nullopt;
  auto e = channels_.find(it->second);
  if (e == channels_.end() || !e->second.open || !e->second.link->is_open()) return std::nullopt;
  return it->second;
}

bool ChannelManager::close_channel(std::uint64_t id, std::string_view reason) {
  Entry* e = find(id);
  if (e == nullptr) return false;
  auto link = e->link;
  link->close(reason);
  return true;
}

void ChannelManager::close_all_channels(std::string_view reason) {
  std::vector<std::shared_ptr<LinkChannel>> all;
  for (auto& [id, e] : channels_) all.push_back(e.link);
  for (auto& link : all) link->close(reason);
}

RuntimeCounters ChannelManager::counters() const {
  RuntimeCounters c = counters_;
  for (const auto& [id, e] : channels_) {
    if (!e.open) ++c.channels_opening;
    else if (e.outbound) ++c.channels_outbound;
    else ++c.channels_inbound;
  }
  for (const auto& [id, pending] : connecting_)
    if (!pending.channel) ++c.connects_pending;
  c.circuits = switch_.circuit_count();
  c.circuits_created = switch_.stats().circuits_created;
  c.circuits_cc = switch_.stats().circuits_cc;
  c.cc_slow_start_exits = switch_.stats().cc_slow_start_exits;
  c.circuits_closed = switch_.stats().circuits_closed;
  c.queued_bytes = gauge_->bytes;
  c.exit_buffered_bytes = exit_ != nullptr ? exit_->buffered_bytes() : 0;
  c.channel_buffered_bytes = gauge_->channel_buffer_bytes;
  c.max_mem_in_queues = queue_limit_.max();
  c.dos = dos_.stats();
  return c;
}

bool ChannelManager::send_to_client(proto::CircuitHandle circuit, StreamId stream, const cell::RelayMsg& msg) {
  const bool ok = switch_.send_to_client(circuit, stream, msg);
  run_actions();
  return ok;
}

bool ChannelManager::can_send_data(proto::CircuitHandle circuit) const { return switch_.can_send_data(circuit); }

bool ChannelManager::blocked_on_channel(proto::CircuitHandle circuit) const {
  return switch_.blocked_on_channel(circuit);
}

bool ChannelManager::uses_congestion_control(proto::CircuitHandle circuit) const {
  return switch_.uses_congestion_control(circuit);
}

std::optional<proto::RelayCircuitFlowInfo> ChannelManager::flow_info(proto::CircuitHandle circuit) const {
  return switch_.flow_info(circuit);
}

void ChannelManager::close_circuit(proto::CircuitHandle circuit, cell::DestroyReason reason) {
  switch_.close_circuit(circuit, reason);
  run_actions();
}

std::optional<proto::ChannelId> ChannelManager::client_channel(proto::CircuitHandle circuit) const {
  return switch_.client_channel(circuit);
}

void ChannelManager::log(LogLevel level, std::string_view message) const {
  if (log_) log_(level, message);
}

}  // namespace conflux::net
