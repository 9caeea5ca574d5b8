// The join point's outbound side and lifetimes: what the exit module sends
// on a set's handle, windows reopening, legs and sets closing, deadlines.
#include <algorithm>
#include <string>

#include "conflux/exit/conflux_join.hpp"

namespace conflux::exit {

namespace {

bool is_memory(proto::ConfluxError e) noexcept {
  switch (e) {
    case proto::ConfluxError::SetQueueFull:
    case proto::ConfluxError::GlobalQueueFull:
    case proto::ConfluxError::RetransmitFull:
    case proto::ConfluxError::ResendUnavailable:
      return true;
    default:
      return false;
  }
}

// A DESTROY the client chose to send (tor clients send NONE; ours FINISHED),
// as opposed to a relay on the way failing: only then is the set done when
// its last leg goes; otherwise the client may link a replacement.
bool deliberate(cell::DestroyReason r) noexcept {
  return r == cell::DestroyReason::None || r == cell::DestroyReason::Finished || r == cell::DestroyReason::Requested;
}

cell::DestroyReason destroy_reason_for(SetCloseReason why) noexcept {
  switch (why) {
    case SetCloseReason::Protocol: return cell::DestroyReason::Protocol;
    case SetCloseReason::Memory: return cell::DestroyReason::ResourceLimit;
    case SetCloseReason::LeglessTimeout: return cell::DestroyReason::Timeout;
    case SetCloseReason::Client: return cell::DestroyReason::Finished;
    case SetCloseReason::Internal: return cell::DestroyReason::Internal;
  }
  return cell::DestroyReason::Internal;
}

proto::SetId set_id_of(proto::CircuitHandle h) noexcept {
  return proto::SetId{h & ~ConfluxJoin::kSetHandleBit};
}

}  // namespace

// ---- CircuitOutput: the exit module sends ---------------------------------------

bool ConfluxJoin::send_to_client(proto::CircuitHandle circuit, StreamId stream, const cell::RelayMsg& msg) {
  if (!is_set_handle(circuit)) return out_.send_to_client(circuit, stream, msg);
  const proto::SetId id = set_id_of(circuit);
  SetEntry* e = find_set(id);
  if (e == nullptr) return false;
  if (auto route = proto::route_leg_cell(cell::command_of(msg), stream);
      !route || *route != proto::LegCellRoute::Sequenced) {
    // The exit module sends nothing else on a set: stream SENDMEs are
    // sequenced like the rest (route_leg_cell).
    return true;
  }
  if (!e->waiting.empty()) {
    // Behind a cell that waits: a stream's cells keep their order.
    if (e->waiting.size() >= kMaxWaitingCells) {
      log(log::Severity::Notice, "conflux set: too many cells waiting for a window: closing the set");
      close_set(id, SetCloseReason::Memory);
      return false;
    }
    e->waiting.push_back(Waiting{stream, msg});
    return true;
  }
  follow_leg_channels(*e);
  auto cells = e->set->send(stream, msg, now_());
  if (!cells) {
    if (cells.error() == proto::ConfluxError::WindowClosed) {
      // can_send_data() said yes, but the scheduler's answer moves with the
      // clock and with every cell sent since: the cell waits for a window.
      log(log::Severity::Debug, "conflux set: DATA waits for a window");
      e->waiting.push_back(Waiting{stream, msg});
      e->want_writable = true;
      return true;
    }
    set_failed(id, cells.error());
    return false;
  }
  return send_cells(id, *cells);
}

bool ConfluxJoin::can_send_data(proto::CircuitHandle circuit) const {
  if (!is_set_handle(circuit)) return out_.can_send_data(circuit);
  const SetEntry* e = find_set(set_id_of(circuit));
  if (e == nullptr) return false;
  follow_leg_channels(*e);
  const bool ok = e->waiting.empty() && e->set->can_send_data(now_());
  if (!ok) e->want_writable = true;
  return ok;
}

bool ConfluxJoin::blocked_on_channel(proto::CircuitHandle circuit) const {
  // A set is never blocked as a whole: can_send_data() answers for it.
  return !is_set_handle(circuit) && out_.blocked_on_channel(circuit);
}

void ConfluxJoin::follow_leg_channels(const SetEntry& e) const {
  for (const proto::CircuitHandle leg : e.legs)
    if (const auto it = legs_.find(leg); it != legs_.end())
      e.set->set_leg_channel_blocked(it->second.leg, out_.blocked_on_channel(leg));
}

bool ConfluxJoin::uses_congestion_control(proto::CircuitHandle circuit) const {
  if (!is_set_handle(circuit)) return out_.uses_congestion_control(circuit);
  const SetEntry* e = find_set(set_id_of(circuit));
  if (e == nullptr || e->legs.empty()) return false;
  return std::all_of(e->legs.begin(), e->legs.end(),
                     [this](proto::CircuitHandle leg) { return out_.uses_congestion_control(leg); });
}

void ConfluxJoin::close_circuit(proto::CircuitHandle circuit, cell::DestroyReason reason) {
  if (!is_set_handle(circuit)) return out_.close_circuit(circuit, reason);
  // The exit module closes a set for a stream protocol violation.
  close_set(set_id_of(circuit), SetCloseReason::Protocol, reason);
}

std::optional<proto::ChannelId> ConfluxJoin::client_channel(proto::CircuitHandle circuit) const {
  if (is_set_handle(circuit)) return std::nullopt;
  return out_.client_channel(circuit);
}

// ---- sending on legs ------------------------------------------------------------

bool ConfluxJoin::send_cells(proto::SetId id, const std::vector<proto::LegCell>& cells) {
  for (const auto& c : cells) {
    if (find_set(id) == nullptr) return false;
    // A leg that died since the set chose it: the set kept its cells for a
    // replacement leg.
    const auto circuit = circuit_of(c.leg);
    if (!circuit) continue;
    if (!out_.send_to_client(*circuit, c.stream, c.msg)) {
      log(log::Severity::Info, "conflux leg refused a cell: closing the leg");
      close_leg(*circuit, cell::DestroyReason::Internal);
    }
  }
  return find_set(id) != nullptr;
}

bool ConfluxJoin::send_waiting(proto::SetId id) {
  for (SetEntry* e = find_set(id); e != nullptr && !e->waiting.empty(); e = find_set(id)) {
    follow_leg_channels(*e);
    auto cells = e->set->send(e->waiting.front().stream, e->waiting.front().msg, now_());
    if (!cells) {
      if (cells.error() == proto::ConfluxError::WindowClosed) return true;
      set_failed(id, cells.error());
      return false;
    }
    e->waiting.pop_front();
    if (!send_cells(id, *cells)) return false;
  }
  return find_set(id) != nullptr;
}

void ConfluxJoin::after_window(proto::SetId id) {
  SetEntry* e = find_set(id);
  if (e == nullptr) return;
  if (!send_cells(id, e->set->flush(now_()))) return;
  if (!send_waiting(id)) return;
  e = find_set(id);
  if (e != nullptr) follow_leg_channels(*e);
  if (e == nullptr || !e->want_writable || !e->waiting.empty() || !e->set->can_send_data(now_())) return;
  e->want_writable = false;
  if (inner_ != nullptr) inner_->on_circuit_writable(set_handle(id));
}

// ---- windows: the runtime reports ------------------------------------------------

void ConfluxJoin::on_circuit_sendme(proto::CircuitHandle circuit) {
  if (closing_.contains(circuit)) return;
  const auto it = legs_.find(circuit);
  if (it == legs_.end()) {
    if (inner_ != nullptr) inner_->on_circuit_sendme(circuit);
    return;
  }
  const LegRef ref = it->second;
  SetEntry* e = find_set(ref.set);
  if (e == nullptr) return;
  if (auto r = e->set->on_leg_sendme(ref.leg, now_()); !r) return set_failed(ref.set, r.error());
  // The switch has run Vegas on this SENDME already: the leg follows its
  // cwnd and RTT.
  follow_leg_cc(*e, circuit, ref.leg);
  after_window(ref.set);
}

void ConfluxJoin::follow_leg_cc(SetEntry& e, proto::CircuitHandle circuit, proto::LegId leg) {
  const auto flow = out_.flow_info(circuit);
  if (!flow || !flow->congestion_control) return;
  auto u32 = [](std::uint64_t v) { return static_cast<std::uint32_t>(std::min<std::uint64_t>(v, UINT32_MAX)); };
  const auto rtt = std::min<std::uint64_t>(flow->ewma_rtt_usec, INT64_MAX);
  e.set->set_leg_cc(leg, proto::LegCcView{u32(flow->window), proto::RttDuration{static_cast<std::int64_t>(rtt)}});
}

void ConfluxJoin::on_circuit_writable(proto::CircuitHandle circuit) {
  if (closing_.contains(circuit)) return;
  const auto it = legs_.find(circuit);
  if (it == legs_.end()) {
    if (inner_ != nullptr) inner_->on_circuit_writable(circuit);
    return;
  }
  after_window(it->second.set);
}

// ---- legs and sets closing --------------------------------------------------------

void ConfluxJoin::on_circuit_closed(proto::CircuitHandle circuit, cell::DestroyReason reason) {
  if (closing_.erase(circuit) > 0) return;
  if (legs_.contains(circuit)) return detach_leg(circuit, deliberate(reason));
  used_.erase(circuit);
  if (inner_ != nullptr) inner_->on_circuit_closed(circuit, reason);
}

void ConfluxJoin::detach_leg(proto::CircuitHandle circuit, bool by_client) {
  const auto it = legs_.find(circuit);
  if (it == legs_.end()) return;
  const LegRef ref = it->second;
  legs_.erase(it);
  leg_circuits_.erase(ref.leg);
  (void)registry_.remove_leg(ref.leg);
  ++totals_.legs_closed;
  SetEntry* e = find_set(ref.set);
  if (e == nullptr) return;
  e->set->leg_closed(ref.leg);
  std::erase(e->legs, circuit);
  if (!e->legs.empty()) return;
  // A client that wants the set to go on links the replacement before it
  // closes its last leg itself.
  if (by_client) return close_set(ref.set, SetCloseReason::Client);
  // A relay on the way failed: the streams stay, the client may link a
  // replacement leg with the same nonce and get what the dead legs lost.
  e->legless_since = now_();
}

void ConfluxJoin::close_quietly(proto::CircuitHandle circuit, cell::DestroyReason reason) {
  // Only a circuit the runtime still has reports CircuitClosed back.
  if (out_.client_channel(circuit)) closing_.insert(circuit);
  out_.close_circuit(circuit, reason);
}

void ConfluxJoin::close_leg(proto::CircuitHandle circuit, cell::DestroyReason reason) {
  detach_leg(circuit, false);
  close_quietly(circuit, reason);
}

void ConfluxJoin::close_plain(proto::CircuitHandle circuit, cell::DestroyReason reason) {
  out_.close_circuit(circuit, reason);
}

void ConfluxJoin::retire_stats(const proto::ConfluxSet& set) {
  const auto& s = set.stats();
  totals_.cells_resent += s.cells_resent;
  totals_.cells_resent_on_relinked += s.cells_resent_on_relinked;
  totals_.duplicates_dropped += s.duplicates_dropped;
  totals_.switches_sent += s.switches_sent;
  totals_.switches_received += s.switches_received;
  totals_.unconfirmed_holds += s.unconfirmed_holds;
}

void ConfluxJoin::close_set(proto::SetId id, SetCloseReason why, std::optional<cell::DestroyReason> reason) {
  const auto it = sets_.find(id);
  if (it == sets_.end()) return;
  SetEntry entry = std::move(it->second);
  sets_.erase(it);
  registry_.forget_set(id);
  for (const auto circuit : entry.legs) {
    if (const auto leg = legs_.find(circuit); leg != legs_.end()) {
      leg_circuits_.erase(leg->second.leg);
      legs_.erase(leg);
    }
  }
  totals_.legs_closed += entry.legs.size();
  ++totals_.sets_closed[static_cast<std::size_t>(why)];
  retire_stats(*entry.set);
  entry.set.reset();  // its out-of-order bytes go back to the budget now
  const cell::DestroyReason r = reason.value_or(destroy_reason_for(why));
  // Every callback these closes cause finds the set gone.
  for (const auto circuit : entry.legs) close_quietly(circuit, r);
  if (inner_ != nullptr) inner_->on_circuit_closed(set_handle(id), r);
}

void ConfluxJoin::set_failed(proto::SetId id, proto::ConfluxError e) {
  log(log::Severity::Info, std::string("closing a conflux set: ") + std::string(proto::to_string(e)));
  if (proto::is_local_error(e)) return close_set(id, SetCloseReason::Internal);
  close_set(id, is_memory(e) ? SetCloseReason::Memory : SetCloseReason::Protocol);
}

void ConfluxJoin::shed_under_pressure() {
  const auto victims = budget_.sets_to_close();
  if (!victims.empty()) {
    log(log::Severity::Notice, "conflux reorder memory under pressure: closing " + std::to_string(victims.size()) +
                                   " set(s) with the oldest out-of-order data");
  }
  for (const auto id : victims) close_set(id, SetCloseReason::Memory);
}

std::size_t ConfluxJoin::buffered_bytes() const {
  return budget_.used_bytes() + (inner_ ? inner_->buffered_bytes() : 0);
}

std::vector<proto::BufferedCircuit> ConfluxJoin::buffered_circuits() const {
  auto out = inner_ ? inner_->buffered_circuits() : std::vector<proto::BufferedCircuit>{};
  for (const auto& u : budget_.usage()) out.push_back({set_handle(u.set), u.bytes, u.oldest});
  return out;
}

bool ConfluxJoin::close_for_memory(proto::CircuitHandle circuit) {
  if (!is_set_handle(circuit)) return false;
  const proto::SetId id{circuit & ~kSetHandleBit};
  if (find_set(id) == nullptr) return false;
  log(log::Severity::Notice, "MaxMemInQueues: closing a Conflux set with the oldest queued data");
  close_set(id, SetCloseReason::Memory);
  return true;
}

// ---- deadlines ----------------------------------------------------------------------

void ConfluxJoin::tick(proto::ConfluxTime now) {
  for (const auto leg : registry_.expired(now)) {
    ++totals_.linked_ack_timeouts;
    if (const auto circuit = circuit_of(leg)) {
      log(log::Severity::Info, "CONFLUX_LINKED_ACK overdue: closing the leg");
      close_leg(*circuit, cell::DestroyReason::Timeout);
    } else {
      (void)registry_.remove_leg(leg);
    }
  }
  std::vector<proto::SetId> legless;
  for (const auto& [id, e] : sets_)
    if (e.legs.empty() && e.legless_since && now - *e.legless_since >= config_.legless_grace) legless.push_back(id);
  for (const auto id : legless) close_set(id, SetCloseReason::LeglessTimeout);
  if (budget_.under_pressure()) shed_under_pressure();
  // A scheduler that held DATA back for a moment (ECF waiting for the fast
  // leg) may let it go by now without any SENDME to say so.
  std::vector<proto::SetId> waiting;
  for (const auto& [id, e] : sets_)
    if (!e.waiting.empty() || e.want_writable) waiting.push_back(id);
  for (const auto id : waiting) after_window(id);
}

// ---- queries ----------------------------------------------------------------------

ConfluxJoin::SetEntry* ConfluxJoin::find_set(proto::SetId id) {
  const auto it = sets_.find(id);
  return it == sets_.end() ? nullptr : &it->second;
}

const ConfluxJoin::SetEntry* ConfluxJoin::find_set(proto::SetId id) const {
  const auto it = sets_.find(id);
  return it == sets_.end() ? nullptr : &it->second;
}

std::optional<proto::CircuitHandle> ConfluxJoin::circuit_of(proto::LegId leg) const {
  const auto it = leg_circuits_.find(leg);
  if (it == leg_circuits_.end() || !legs_.contains(it->second)) return std::nullopt;
  return it->second;
}

std::optional<proto::SetId> ConfluxJoin::set_of(proto::CircuitHandle leg_circuit) const {
  const auto it = legs_.find(leg_circuit);
  if (it == legs_.end()) return std::nullopt;
  return it->second.set;
}

const proto::ConfluxSet* ConfluxJoin::set(proto::SetId id) const {
  const SetEntry* e = find_set(id);
  return e == nullptr ? nullptr : e->set.get();
}

ConfluxJoinStats ConfluxJoin::stats() const {
  ConfluxJoinStats s = totals_;
  s.sets = sets_.size();
  s.legs = legs_.size();
  s.reorder_bytes = budget_.used_bytes();
  s.reorder_cap_bytes = budget_.config().cap_bytes;
  for (const auto& [id, e] : sets_) {
    if (e.legs.empty()) ++s.sets_legless;
    s.retained_bytes += e.set->retained_bytes();
    const auto& st = e.set->stats();
    s.cells_resent += st.cells_resent;
    s.cells_resent_on_relinked += st.cells_resent_on_relinked;
    s.duplicates_dropped += st.duplicates_dropped;
    s.switches_sent += st.switches_sent;
    s.switches_received += st.switches_received;
    s.unconfirmed_holds += st.unconfirmed_holds;
  }
  return s;
}

}  // namespace conflux::exit
