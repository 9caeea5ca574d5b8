#include "conflux/client/conflux_tunnel.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "conflux/client/circuit.hpp"
#include "conflux/crypto/random.hpp"
#include "conflux/proto/leg_sched.hpp"

namespace conflux::client {
namespace {

RelayIdentity identity_of(const PathHop& hop) {
  RelayIdentity id{};
  std::copy(hop.target.identity.begin(), hop.target.identity.end(), id.begin());
  return id;
}

bool is_conflux_command(cell::RelayCommand cmd) {
  return cmd == cell::RelayCommand::ConfluxLink || cmd == cell::RelayCommand::ConfluxLinked ||
         cmd == cell::RelayCommand::ConfluxLinkedAck || cmd == cell::RelayCommand::ConfluxSwitch;
}

}  // namespace

ConfluxTunnelConfig ConfluxTunnelConfig::for_ux(cell::ConfluxUx ux, std::size_t num_legs) {
  ConfluxTunnelConfig c;
  c.ux = ux;
  c.num_legs = std::clamp<std::size_t>(num_legs, 1, proto::LegScheduler::kMaxLegs);
  c.set.scheduler = proto::leg_sched_for_ux(ux);
  c.set.sched_params = proto::leg_sched_params_for_ux(ux);
  c.set.max_legs = std::max(c.set.max_legs, c.num_legs);
  c.link.legs_per_set = c.num_legs;
  c.link.max_legs = std::max(c.link.max_legs, c.num_legs);
  return c;
}

namespace {

// With congestion control a leg's SENDME acknowledges sendme_inc cells, not
// the fixed windows' 100, and its window is Vegas's (fed per SENDME).
ConfluxTunnelConfig with_cc_windows(ConfluxTunnelConfig c) {
  if (c.congestion_control) {
    c.set.window.sendme_inc = c.congestion_control->sendme_inc;
    c.set.window.cwnd = static_cast<std::uint32_t>(c.congestion_control->cwnd_init);
  }
  return c;
}

}  // namespace

ConfluxTunnel::ConfluxTunnel(std::uint64_t serial, ConfluxTunnelConfig config, proto::ReorderBudget& budget,
                             Hooks hooks, const net::Clock& clock, net::LogSink log)
    : serial_(serial),
      config_(with_cc_windows(std::move(config))),
      hooks_(std::move(hooks)),
      clock_(clock),
      log_(std::move(log)),
      set_(std::make_unique<proto::ConfluxSet>(proto::SetId{serial}, budget, config_.set)),
      nonce_(crypto::random_array<cell::kConfluxNonceLen>()),
      linker_(nonce_, config_.link) {}

ConfluxTunnel::~ConfluxTunnel() {
  // Legs still ours hear nothing more from us, and tell us nothing more.
  for (auto& [serial, leg] : legs_) {
    leg.circuit->set_leg_owner(nullptr);
    leg.circuit->close(cell::DestroyReason::Finished, "Conflux set freed");
  }
  auto streams = std::move(streams_);
  streams_.clear();
  for (auto& [id, s] : streams) s->on_circuit_closed("Conflux set freed");
}

void ConfluxTunnel::start(std::optional<std::uint16_t> port) {
  port_ = port;
  for (std::size_t i = 0; i < config_.num_legs && state_ != State::Closed; ++i)
    if (!launch_leg(std::nullopt)) break;
}

void ConfluxTunnel::tick() {
  if (state_ == State::Closed) return;
  for (const proto::LegId id : linker_.expired(now())) {
    // The linker already forgot it; closing it launches a replacement.
    std::optional<std::uint64_t> serial;
    for (const auto& [s, leg] : legs_)
      if (leg.id == id) serial = s;
    if (serial) close_leg(*serial, cell::DestroyReason::Finished, "no LINKED in time");
    if (state_ == State::Closed) return;
  }
  top_up();
  check_viable();
}

ConfluxTunnel::Leg* ConfluxTunnel::find_leg(std::uint64_t serial) {
  auto it = legs_.find(serial);
  return it == legs_.end() ? nullptr : &it->second;
}

ConfluxTunnel::Leg* ConfluxTunnel::find_leg(proto::LegId id) {
  for (auto& [serial, leg] : legs_)
    if (leg.id == id) return &leg;
  return nullptr;
}

std::string ConfluxTunnel::leg_name(proto::LegId id) const {
  return "Conflux set " + std::to_string(serial_) + " leg " + std::to_string(id.value());
}

std::size_t ConfluxTunnel::linked_legs() const noexcept {
  return static_cast<std::size_t>(
      std::count_if(legs_.begin(), legs_.end(), [](const auto& kv) { return kv.second.phase == LegPhase::Linked; }));
}

std::size_t ConfluxTunnel::pending_legs() const noexcept { return legs_.size() - linked_legs(); }

// ---- legs ----

bool ConfluxTunnel::launch_leg(std::optional<RelayIdentity> retry_through) {
  if (state_ == State::Closed || !hooks_.launch_leg || !linker_.launch_budget_left()) return false;
  // A tor exit takes no new leg into a set in use: its LINK would carry
  // numbers the exit may not have delivered yet ("data loss"), and tor's
  // clients never relaunch a linked set.
  if (exit_kind_ == ExitKind::Tor && state_ == State::Open) return false;
  LegRequest req;
  req.port = exit_ ? std::nullopt : port_;
  req.exit = exit_;
  // Legs share only the exit (prop 329 2.4.1): every other relay of the
  // other legs is excluded, first hops separately so the pool can relax
  // that when there is no other guard or bridge.
  for (const auto& [serial, leg] : legs_)
    for (std::size_t i = 0; i + 1 < leg.relays.size(); ++i)
      (i == 0 ? req.exclude_first_hops : req.exclude_middles).insert(leg.relays[i]);
  // Middles of legs that just died: the consensus may still list them.
  const auto t = now();
  for (auto it = suspects_.begin(); it != suspects_.end();) {
    if (it->second <= t) {
      it = suspects_.erase(it);
      continue;
    }
    if (!req.exit || it->first != *req.exit) req.exclude_middles.insert(it->first);
    ++it;
  }
  if (retry_through) {
    req.first_hop = retry_through;
  } else {
    // A first hop that failed too often is avoided (also as a middle).
    for (const auto& [id, n] : first_hop_failures_)
      if (n > config_.same_guard_retries) req.exclude_middles.insert(id);
  }
  LegCircuit* c = hooks_.launch_leg(*this, req);
  if (c == nullptr) return false;
  // Counted once the circuit exists; a launch that found no path is no
  // launch (tor counts before the build, bug 40811, which this also does).
  (void)linker_.note_launch();
  ++stats_.legs_launched;
  Leg leg;
  leg.id = proto::LegId{next_leg_++};
  leg.circuit = c;
  for (const auto& hop : c->info().path) leg.relays.push_back(identity_of(hop));
  if (!exit_ && !c->info().path.empty()) {
    exit_ = leg.relays.back();
    exit_policy_ = c->info().path.back().exit_policy;
  }
  const auto serial = c->info().serial;
  net::emit(log_, net::LogLevel::Info,
            leg_name(leg.id) + " launched (circuit " + std::to_string(serial) + ")" +
                (retry_through ? ", through the same first hop" : ""));
  legs_.emplace(serial, std::move(leg));
  return true;
}

void ConfluxTunnel::top_up() {
  while (state_ != State::Closed && legs_.size() < config_.num_legs)
    if (!launch_leg(std::nullopt)) break;
}

void ConfluxTunnel::check_viable() {
  if (state_ == State::Closed) return;
  const bool can_launch = linker_.launch_budget_left();
  if (legs_.empty() && !can_launch) return close(cell::DestroyReason::Finished, "no legs left and no launches left");
  // Every caller tried to launch first: no leg at all means no path was
  // found, and nothing else would ever end the set or its streams (issue
  // 13: the exit closed a set, the relays of its legs were then excluded).
  if (legs_.empty()) return close(cell::DestroyReason::Finished, "no leg left and no path for a new one");
  // Cells a dead leg never got acknowledged can only go on a new leg.
  if (set_->awaiting_replacement() && pending_legs() == 0 && !can_launch)
    return close(cell::DestroyReason::Finished, "a lost leg cannot be replaced (launch budget spent)");
}

void ConfluxTunnel::close_leg(std::uint64_t serial, cell::DestroyReason reason, std::string why) {
  Leg* l = find_leg(serial);
  if (l == nullptr) return;
  // The circuit reports its close to us (on_leg_closed), which does the rest.
  LegCircuit* c = l->circuit;
  c->close(reason, why);
  if (find_leg(serial) != nullptr) on_leg_closed(serial, why);  // a circuit that was already closed
}

void ConfluxTunnel::on_leg_open(std::uint64_t serial) {
  Leg* l = find_leg(serial);
  if (l == nullptr || state_ == State::Closed || l->phase != LegPhase::Building) return;
  if (config_.congestion_control) {
    // Both ends must count the leg's window the same way: an exit that
    // runs fixed windows (or another sendme_inc) cannot carry this set.
    const auto agreed = l->circuit->leg_cc_agreement();
    if (!agreed || agreed->sendme_inc != config_.congestion_control->sendme_inc)
      return close_leg(serial, cell::DestroyReason::Finished, "the exit did not agree to congestion control");
  }
  l->ours = set_->advertise();
  auto link = linker_.start_leg(l->id, l->ours, config_.ux, now());
  if (!link) return close_leg(serial, cell::DestroyReason::Finished, std::string(proto::to_string(link.error())));
  l->phase = LegPhase::Linking;
  // The LINK carries the nonce: never log it.
  (void)l->circuit->send(StreamId{0}, *link);
}

void ConfluxTunnel::on_leg_closed(std::uint64_t serial, std::string_view why) {
  auto it = legs_.find(serial);
  if (it == legs_.end()) return;
  const Leg leg = std::move(it->second);
  legs_.erase(it);
  if (state_ == State::Closed) return;
  linker_.leg_closed(leg.id);
  if (!leg.relays.empty()) ++first_hop_failures_[leg.relays.front()];
  for (std::size_t i = 1; i + 1 < leg.relays.size(); ++i) suspects_[leg.relays[i]] = now() + config_.suspect_for;
  std::optional<RelayIdentity> retry;
  if (!leg.relays.empty() && first_hop_failures_[leg.relays.front()] <= config_.same_guard_retries)
    retry = leg.relays.front();
  if (set_->has_leg(leg.id) && exit_kind_ == ExitKind::Tor) return on_tor_leg_lost(leg, why);
  if (set_->has_leg(leg.id)) {
    set_->leg_closed(leg.id);
    ++stats_.legs_lost;
    net::emit(log_, net::LogLevel::Info, "Conflux set " + std::to_string(serial_) + " lost leg " +
                                             std::to_string(leg.id.value()) + ": " + std::string(why) + "; relinking");
    relink_survivor();
    if (state_ == State::Closed) return;
  } else {
    ++stats_.legs_failed;
    net::emit(log_, net::LogLevel::Info, leg_name(leg.id) + " failed before linking: " + std::string(why));
  }
  if (linked_legs() == 0 && state_ == State::Open) state_ = State::Linking;
  // The dead leg's guard first (the thesis' defence against a guard that
  // kills legs selectively is the bound on these retries), then another.
  if (legs_.size() < config_.num_legs && !launch_leg(retry) && retry) (void)launch_leg(std::nullopt);
  check_viable();
  // With a tor exit the other legs may have been waiting for this one.
  if (maybe_open() && hooks_.leg_linked) hooks_.leg_linked();
}

void ConfluxTunnel::on_tor_leg_lost(const Leg& leg, std::string_view why) {
  ++stats_.legs_lost;
  if (streams_attached_ > 0) {
    // What it carried (either way) is lost for good: tor's exit tears the
    // set down too when the leg had data in flight or was the newest.
    return close(cell::DestroyReason::Finished, "leg " + std::to_string(leg.id.value()) + " closed (" +
                                                    std::string(why) +
                                                    ") and the set's tor exit cannot resend what it carried");
  }
  // Never used: nothing was sent on any leg, so a new leg links with
  // numbers 0 and the set opens once it has.
  set_->leg_closed(leg.id);
  state_ = State::Linking;
  net::emit(log_, net::LogLevel::Info,
            leg_name(leg.id) + " closed before the set carried anything: " + std::string(why) + "; replacing it");
  if (legs_.size() < config_.num_legs) (void)launch_leg(std::nullopt);
  check_viable();
  if (maybe_open() && hooks_.leg_linked) hooks_.leg_linked();
}

bool ConfluxTunnel::maybe_open() {
  if (state_ != State::Linking || linked_legs() == 0) return false;
  // A tor exit finalises the set at each LINK and would see data sent
  // before the last leg's LINK as lost: every leg links first.
  if (exit_kind_ == ExitKind::Tor && pending_legs() > 0) return false;
  state_ = State::Open;
  return true;
}

bool ConfluxTunnel::any_relinking() const noexcept {
  return std::any_of(legs_.begin(), legs_.end(), [](const auto& kv) { return kv.second.relinking; });
}

void ConfluxTunnel::relink_survivor() {
  if (state_ == State::Closed) return;
  if (any_relinking()) {
    relink_again_ = true;
    return;
  }
  relink_again_ = false;
  if (!set_->awaiting_replacement()) return;  // nothing owed: nothing to move
  Leg* best = nullptr;
  proto::RttDuration best_rtt{};
  for (const auto& info : set_->legs()) {
    Leg* l = find_leg(info.id);
    if (l == nullptr || l->phase != LegPhase::Linked) continue;
    if (best == nullptr || (info.srtt.count() > 0 && (best_rtt.count() == 0 || info.srtt < best_rtt))) {
      best = l;
      best_rtt = info.srtt;
    }
  }
  if (best == nullptr) return;  // no leg survived: the replacement takes the cells
  best->ours = set_->advertise();
  auto link = linker_.start_relink(best->id, best->ours, config_.ux, now());
  if (!link) return;  // the replacement leg will take the cells
  if (auto r = set_->begin_relink(best->id); !r) return fail(r.error());
  best->relinking = true;
  net::emit(log_, net::LogLevel::Info, leg_name(best->id) + " relinking to carry what the lost leg did not deliver");
  // The LINK carries the nonce: never log it.
  (void)best->circuit->send(StreamId{0}, *link);
}

void ConfluxTunnel::on_leg_writable(std::uint64_t) { notify_writable(); }

void ConfluxTunnel::on_leg_msg(std::uint64_t serial, HopNum hop, StreamId stream, const cell::RelayMsg& msg) {
  Leg* l = find_leg(serial);
  if (l == nullptr || state_ == State::Closed) return;
  const auto cmd = cell::command_of(msg);
  const HopNum join{static_cast<std::uint8_t>(l->relays.size())};
  if (!proto::check_join_point(hop, join)) {
    // Only the exit speaks for the set: a middle relay injecting conflux or
    // stream cells is closed out (tor: conflux_validate_source_hop).
    if (is_conflux_command(cmd) || cell::is_conflux_multiplexed(cmd) || cmd == cell::RelayCommand::BeginDir)
      close_leg(serial, cell::DestroyReason::Protocol, "a Conflux or stream cell from a hop that is not the exit");
    return;
  }
  // Circuit SENDMEs (stream 0) are the leg's own; stream SENDMEs are
  // sequenced (route_leg_cell).
  if (std::holds_alternative<cell::SendmeMsg>(msg) && stream == StreamId{0}) return on_leg_sendme(serial);
  auto route = proto::route_leg_cell(cmd, stream);
  if (!route) return fail(route.error());
  if (*route == proto::LegCellRoute::Sequenced) {
    if (l->phase != LegPhase::Linked)
      return close_leg(serial, cell::DestroyReason::Protocol, "a stream cell on a leg not linked yet");
    return on_sequenced(serial, stream, msg);
  }
  if (const auto* linked = std::get_if<cell::ConfluxLinkedMsg>(&msg)) return on_linked(serial, *linked);
  if (const auto* sw = std::get_if<cell::ConfluxSwitchMsg>(&msg)) {
    if (l->phase != LegPhase::Linked) return close_leg(serial, cell::DestroyReason::Protocol, "SWITCH before LINKED");
    if (auto r = set_->on_switch(l->id, *sw); !r) return fail(r.error());
    return;
  }
  if (std::holds_alternative<cell::SendmeMsg>(msg)) {
    // A stream SENDME is leg-local (not sequenced): straight to its stream.
    auto it = streams_.find(stream.value());
    if (it != streams_.end()) it->second->on_stream_msg(msg);
    return;
  }
  if (is_conflux_command(cmd))  // LINK or LINKED_ACK towards a client
    return close_leg(serial, cell::DestroyReason::Protocol, "a Conflux cell only a client sends");
  // Anything else leg-local (DROP, ...) means nothing to the set.
}

void ConfluxTunnel::on_linked(std::uint64_t serial, const cell::ConfluxLinkedMsg& msg) {
  Leg* l = find_leg(serial);
  if (l == nullptr) return;
  auto linked = linker_.on_linked(l->id, msg, now());
  if (!linked)
    return close_leg(serial, cell::DestroyReason::Protocol,
                     "LINKED refused: " + std::string(proto::to_string(linked.error())));
  if (l->relinking) return on_relinked(*l, *linked);
  // Every leg ends at the same exit; if any LINKED does not offer
  // resumption, tor's rules hold for the whole set.
  exit_kind_ = linked->peer_resumes && exit_kind_ != ExitKind::Tor ? ExitKind::Resumes : ExitKind::Tor;
  // A tor exit does not bound how far it sends ahead of a stalled leg (ours
  // does: conflux_unconfirmed.hpp), and tor's client holds whatever comes
  // (cfx_max_oooq_bytes is off by default): so do we, within the process's
  // ReorderBudget, which sheds the sets holding the oldest data first.
  if (exit_kind_ == ExitKind::Tor) set_->set_reorder_cap(std::numeric_limits<std::size_t>::max());
  const auto rtt = std::chrono::duration_cast<proto::RttDuration>(linked->rtt);
  if (auto added = set_->add_leg(l->id, l->ours, linked->peer, rtt, now()); !added) {
    if (added.error() == proto::ConfluxError::TooManyLegs)
      return close_leg(serial, cell::DestroyReason::Finished, "too many legs");
    return fail(added.error());
  }
  l->phase = LegPhase::Linked;
  follow_leg_cwnd(*l);
  ++stats_.legs_linked;
  (void)l->circuit->send(StreamId{0}, linked->ack);
  (void)maybe_open();
  const auto rtt_tenths = rtt.count() / 100;  // 0.1 ms
  net::emit(log_, net::LogLevel::Info,
            "Conflux set " + std::to_string(serial_) + " linked leg " + std::to_string(l->id.value()) + " (" +
                std::to_string(linked_legs()) + " of " + std::to_string(config_.num_legs) + " legs), first RTT " +
                std::to_string(rtt_tenths / 10) + "." + std::to_string(rtt_tenths % 10) + " ms");
  if (linked_legs() >= config_.num_legs && pending_legs() == 0 && !any_relinking()) {
    // Every leg linked: the launch budget starts again (tor resets
    // num_leg_launch when a set finalizes). Each renewal needs a fully
    // linked set, so a guard that kills legs cannot make us launch
    // without bound.
    linker_ = proto::ClientLinker(nonce_, config_.link);
  }
  flush();
  notify_writable();
  if (hooks_.leg_linked && state_ != State::Closed) hooks_.leg_linked();
}

void ConfluxTunnel::on_relinked(Leg& l, const proto::ClientLinked& linked) {
  const auto rtt = std::chrono::duration_cast<proto::RttDuration>(linked.rtt);
  if (auto r = set_->relink_leg(l.id, l.ours, linked.peer, rtt, now()); !r) return fail(r.error());
  l.relinking = false;
  ++stats_.legs_relinked;
  (void)l.circuit->send(StreamId{0}, linked.ack);
  net::emit(log_, net::LogLevel::Info,
            leg_name(l.id) + " relinked; " + std::to_string(set_->stats().cells_resent_on_relinked) +
                " cells resent on surviving legs so far");
  flush();
  notify_writable();
  if (relink_again_) relink_survivor();
}

void ConfluxTunnel::on_sequenced(std::uint64_t serial, StreamId stream, const cell::RelayMsg& msg) {
  Leg* l = find_leg(serial);
  if (l == nullptr) return;
  auto out = set_->on_cell(l->id, stream, msg, now());
  if (!out) return fail(out.error());
  const bool pressure = set_->memory_pressure();
  deliver(std::move(*out));
  if (pressure && hooks_.memory_pressure) hooks_.memory_pressure();
}

void ConfluxTunnel::follow_leg_cwnd(const Leg& l) {
  // The leg's circuit has handled its SENDMEs already: the set's scheduler
  // reads its Vegas (cwnd, N-EWMA RTT), as tor's does.
  const proto::Vegas* v = l.circuit->leg_vegas();
  if (v == nullptr) return;
  auto u32 = [](std::uint64_t x) { return static_cast<std::uint32_t>(std::min<std::uint64_t>(x, UINT32_MAX)); };
  const auto rtt = std::min<std::uint64_t>(v->rtt().ewma_usec(), INT64_MAX);
  set_->set_leg_cc(l.id, proto::LegCcView{u32(v->cwnd()), proto::RttDuration{static_cast<std::int64_t>(rtt)}});
}

void ConfluxTunnel::on_leg_sendme(std::uint64_t serial) {
  Leg* l = find_leg(serial);
  if (l == nullptr || l->phase != LegPhase::Linked) return;  // no DATA went on it yet
  if (auto r = set_->on_leg_sendme(l->id, now()); !r) return fail(r.error());
  follow_leg_cwnd(*l);
  flush();
  notify_writable();
}

void ConfluxTunnel::deliver(std::vector<proto::DeliveredMsg> msgs) {
  for (auto& m : msgs) {
    if (state_ == State::Closed) return;
    // Re-looked up each time: a stream may leave while told.
    auto it = streams_.find(m.stream.value());
    if (it == streams_.end()) continue;  // a stream we forgot (tor drops these too)
    it->second->on_stream_msg(m.msg);
  }
}

void ConfluxTunnel::notify_writable() {
  if (state_ == State::Closed) return;
  // Every time, not only on a closed-to-open edge: the scheduler's answer
  // can change without a send of ours (a leg closing, a gate), and a
  // stream that found it closed waits for this.
  const bool can = can_send_data();
  if (can) {
    for (auto* s : wake_order(streams_, wake_turn_)) {
      if (state_ == State::Closed) break;
      s->on_circuit_writable();
    }
  }
}

// ---- sending ----

void ConfluxTunnel::put(std::vector<proto::LegCell> cells) {
  for (auto& c : cells) {
    if (state_ == State::Closed) return;
    // A leg that died meanwhile: the set kept the cell for its replacement.
    Leg* l = find_leg(c.leg);
    if (l == nullptr) continue;
    if (!l->circuit->send(c.stream, c.msg)) {
      // The circuit gave up (its close reaches on_leg_closed); if it is
      // still here it could not take the cell: the set resends it elsewhere.
      for (auto& [serial, leg] : legs_)
        if (leg.id == c.leg) {
          close_leg(serial, cell::DestroyReason::Internal, "could not queue a cell on the leg");
          break;
        }
    }
  }
}

void ConfluxTunnel::flush() {
  if (state_ == State::Closed) return;
  follow_leg_channels();
  put(set_->flush(now()));
}

std::optional<StreamId> ConfluxTunnel::attach(StreamEvents& events) {
  if (state_ != State::Open) return std::nullopt;
  auto id = add_stream(streams_, next_stream_, events);
  if (!id) return std::nullopt;
  ++streams_attached_;
  if (!dirty_since_) dirty_since_ = clock_.now();
  return id;
}

void ConfluxTunnel::detach(StreamId id) { streams_.erase(id.value()); }

bool ConfluxTunnel::send(StreamId id, const cell::RelayMsg& msg) {
  if (state_ == State::Closed) return false;
  const auto route = proto::route_leg_cell(cell::command_of(msg), id);
  if (!route) return false;  // BEGIN_DIR never goes over a set
  // Streams send only sequenced messages (stream SENDMEs included).
  if (*route == proto::LegCellRoute::LegLocal) return false;
  follow_leg_channels();
  auto cells = set_->send(id, msg, now());
  if (!cells) {
    // DATA without window: the stream asked can_send_data() first, so only
    // a held-message overflow or a bug lands here; neither is the peer's.
    if (cells.error() == proto::ConfluxError::WindowClosed || cells.error() == proto::ConfluxError::RetransmitFull)
      return false;
    fail(cells.error());
    return false;
  }
  put(std::move(*cells));
  return state_ != State::Closed;
}

bool ConfluxTunnel::can_send_data() const {
  if (state_ != State::Open || !set_) return false;
  follow_leg_channels();
  return set_->can_send_data(clock_.now());
}

void ConfluxTunnel::follow_leg_channels() const {
  if (!set_) return;
  for (const auto& [serial, leg] : legs_)
    if (leg.phase == LegPhase::Linked) set_->set_leg_channel_blocked(leg.id, leg.circuit->blocked_on_channel());
}

// ---- closing ----

void ConfluxTunnel::fail(proto::ConfluxError e) {
  close(proto::is_local_error(e) ? cell::DestroyReason::Internal : cell::DestroyReason::Protocol,
        "Conflux error: " + std::string(proto::to_string(e)));
}

void ConfluxTunnel::close(cell::DestroyReason reason, std::string_view why) {
  if (state_ == State::Closed) return;
  state_ = State::Closed;
  const std::string reason_text(why);
  net::emit(log_, net::LogLevel::Info, "Conflux set " + std::to_string(serial_) + " closed: " + reason_text);
  // Legs first, without their callbacks (we are no longer anyone's owner).
  auto legs = std::move(legs_);
  legs_.clear();
  for (auto& [serial, leg] : legs) {
    leg.circuit->set_leg_owner(nullptr);
    leg.circuit->close(reason, reason_text);
  }
  auto streams = std::move(streams_);
  streams_.clear();
  for (auto& [id, s] : streams) s->on_circuit_closed(reason_text);
  // Its reorder queue and history go now (the bytes return to the budget).
  set_.reset();
  if (hooks_.closed) hooks_.closed(*this, reason_text);
}

std::uint64_t ConfluxTunnel::control_circuit_id() const {
  for (const auto& [serial, leg] : legs_)
    if (leg.phase == LegPhase::Linked) return serial;
  return legs_.empty() ? 0 : legs_.begin()->first;
}

std::uint64_t ConfluxTunnel::leg_serial(proto::LegId id) const {
  for (const auto& [serial, leg] : legs_)
    if (leg.id == id) return serial;
  return 0;
}

}  // namespace conflux::client
