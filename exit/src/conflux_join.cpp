// The join point's inbound side: what legs and plain circuits deliver, and
// linking (LINK, LINKED, LINKED_ACK).
#include "conflux/exit/conflux_join.hpp"

#include <string>
#include <utility>

namespace conflux::exit {

namespace {

bool is_cap(proto::ConfluxError e) noexcept {
  return e == proto::ConfluxError::TooManySets || e == proto::ConfluxError::TooManyOriginLegs ||
         e == proto::ConfluxError::TooManyLegs;
}

}  // namespace

ConfluxJoin::ConfluxJoin(proto::CircuitOutput& out, NowFn now, ConfluxJoinConfig config)
    : out_(out),
      now_(std::move(now)),
      config_(std::move(config)),
      budget_(config_.budget),
      registry_(config_.link) {}

ConfluxJoin::~ConfluxJoin() = default;

void ConfluxJoin::log(log::Severity level, std::string_view text) const {
  if (config_.log) config_.log(level, text);
}

void ConfluxJoin::on_stream_message(proto::CircuitHandle circuit, StreamId stream, cell::RelayMsg msg) {
  // A cell that was already queued when we closed its circuit.
  if (closing_.contains(circuit)) return;
  if (const auto it = legs_.find(circuit); it != legs_.end()) {
    return on_leg_message(circuit, it->second, stream, std::move(msg));
  }
  on_plain_message(circuit, stream, std::move(msg));
}

void ConfluxJoin::on_plain_message(proto::CircuitHandle circuit, StreamId stream, cell::RelayMsg msg) {
  if (const auto* link = std::get_if<cell::ConfluxLinkMsg>(&msg)) return on_link(circuit, stream, *link);
  if (std::holds_alternative<cell::ConfluxLinkedMsg>(msg) || std::holds_alternative<cell::ConfluxLinkedAckMsg>(msg) ||
      std::holds_alternative<cell::ConfluxSwitchMsg>(msg)) {
    // tor closes a circuit that is not a leg on these too.
    log(log::Severity::Info, "conflux command on a circuit that is not a leg: closing it");
    return close_plain(circuit, cell::DestroyReason::Protocol);
  }
  if (stream != StreamId{0}) used_.insert(circuit);
  if (inner_ != nullptr) inner_->on_stream_message(circuit, stream, std::move(msg));
}

void ConfluxJoin::on_leg_message(proto::CircuitHandle circuit, LegRef ref, StreamId stream, cell::RelayMsg msg) {
  if (const auto* link = std::get_if<cell::ConfluxLinkMsg>(&msg)) return on_relink(circuit, ref, *link);
  if (std::holds_alternative<cell::ConfluxLinkedMsg>(msg)) {
    log(log::Severity::Info, "CONFLUX_LINKED on a leg: closing the leg");
    return close_leg(circuit, cell::DestroyReason::Protocol);
  }
  if (std::holds_alternative<cell::ConfluxLinkedAckMsg>(msg)) return on_linked_ack(circuit, ref);
  if (const auto* sw = std::get_if<cell::ConfluxSwitchMsg>(&msg)) {
    SetEntry* e = find_set(ref.set);
    if (e == nullptr) return;
    if (auto r = e->set->on_switch(ref.leg, *sw); !r) set_failed(ref.set, r.error());
    return;
  }
  const auto route = proto::route_leg_cell(cell::command_of(msg), stream);
  if (!route) {
    // BEGIN_DIR: directory requests never travel over a set (TROVE-2026-008).
    log(log::Severity::Info, "BEGIN_DIR on a conflux leg: closing the leg");
    return close_leg(circuit, cell::DestroyReason::Protocol);
  }
  if (*route == proto::LegCellRoute::Sequenced) return on_sequenced(ref, stream, msg);
  // Leg-local and not the switch's (TRUNCATED, EXTENDED2 sent the wrong
  // way, ...): nothing for streams. Stream SENDMEs are sequenced.
}

void ConfluxJoin::on_sequenced(LegRef ref, StreamId stream, const cell::RelayMsg& msg) {
  SetEntry* e = find_set(ref.set);
  if (e == nullptr) return;
  auto r = e->set->on_cell(ref.leg, stream, msg, now_());
  if (!r) return set_failed(ref.set, r.error());
  const bool pressure = e->set->memory_pressure() || budget_.under_pressure();
  deliver(ref.set, std::move(*r));
  if (pressure) shed_under_pressure();
}

void ConfluxJoin::deliver(proto::SetId id, std::vector<proto::DeliveredMsg> msgs) {
  const proto::CircuitHandle handle = set_handle(id);
  for (auto& m : msgs) {
    // The exit module may close the set while handling a message.
    if (find_set(id) == nullptr || inner_ == nullptr) return;
    inner_->on_stream_message(handle, m.stream, std::move(m.msg));
  }
}

proto::LegId ConfluxJoin::allocate_leg(proto::CircuitHandle circuit) {
  for (;;) {
    const proto::LegId leg{next_leg_++};
    if (leg.value() == 0 || leg_circuits_.contains(leg) || registry_.set_of(leg)) continue;
    leg_circuits_.emplace(leg, circuit);
    return leg;
  }
}

void ConfluxJoin::on_link(proto::CircuitHandle circuit, StreamId stream, const cell::ConfluxLinkMsg& msg) {
  const proto::ConfluxTime now = now_();
  if (stream != StreamId{0} || used_.contains(circuit)) {
    // A set's streams live at the join point only; a circuit that already
    // carried streams of its own cannot become a leg.
    ++totals_.links_refused;
    log(log::Severity::Info, "CONFLUX_LINK on a circuit that carried streams: closing it");
    return close_plain(circuit, cell::DestroyReason::Protocol);
  }
  // The exit sees only the previous hop: LINKs are attributed to the channel.
  const proto::OriginKey origin = out_.client_channel(circuit).value_or(0);
  const proto::LegId leg = allocate_leg(circuit);
  auto linked = registry_.on_link(origin, leg, msg);
  if (!linked) {
    leg_circuits_.erase(leg);
    ++totals_.links_refused;
    log(log::Severity::Info, std::string("CONFLUX_LINK refused: ") + std::string(proto::to_string(linked.error())));
    return close_plain(circuit, is_cap(linked.error()) ? cell::DestroyReason::ResourceLimit
                                                       : cell::DestroyReason::Protocol);
  }
  const proto::SetId id = linked->set;
  if (linked->new_set) {
    proto::ConfluxSetConfig cfg = config_.set;
    // We send to the client: its desired UX picks how.
    cfg.scheduler = proto::leg_sched_for_ux(linked->peer_ux);
    cfg.sched_params = proto::leg_sched_params_for_ux(linked->peer_ux);
    // A congestion-controlled leg is acknowledged every sendme_inc cells
    // and limited by Vegas's cwnd, not by fixed windows (1000/100).
    if (auto flow = out_.flow_info(circuit); flow && flow->congestion_control) {
      cfg.window.cwnd = static_cast<std::uint32_t>(flow->window);
      cfg.window.sendme_inc = flow->sendme_inc;
    }
    SetEntry entry;
    entry.set = std::make_unique<proto::ConfluxSet>(id, budget_, cfg);
    sets_.emplace(id, std::move(entry));
    registry_.hold(id);
    ++totals_.sets_created;
  }
  SetEntry* e = find_set(id);
  if (e == nullptr) {  // the registry and the sets disagree: a bug, refuse the leg
    leg_circuits_.erase(leg);
    (void)registry_.remove_leg(leg);
    return close_plain(circuit, cell::DestroyReason::Internal);
  }
  const proto::LinkNumbers ours = e->set->advertise();
  if (auto added = e->set->add_leg(leg, ours, linked->peer, proto::RttDuration{0}, now); !added) {
    const proto::ConfluxError err = added.error();
    leg_circuits_.erase(leg);
    (void)registry_.remove_leg(leg);
    ++totals_.links_refused;
    log(log::Severity::Info, std::string("conflux leg not added: ") + std::string(proto::to_string(err)));
    if (proto::is_local_error(err) || is_cap(err)) {
      close_plain(circuit, is_cap(err) ? cell::DestroyReason::ResourceLimit : cell::DestroyReason::Internal);
      if (linked->new_set) close_set(id, SetCloseReason::Internal);  // nothing else would end it
      return;
    }
    // Numbers no correct peer sends (it claims more delivered than we
    // sent): the set they name is not to be trusted either.
    close_plain(circuit, cell::DestroyReason::Protocol);
    return set_failed(id, err);
  }
  follow_leg_cc(*e, circuit, leg);
  legs_[circuit] = LegRef{id, leg};
  e->legs.push_back(circuit);
  e->legless_since.reset();
  ++totals_.legs_linked;
  auto reply = registry_.make_linked(leg, ours, now);
  if (!reply) return close_leg(circuit, cell::DestroyReason::Internal);
  if (!out_.send_to_client(circuit, StreamId{0}, *reply)) return close_leg(circuit, cell::DestroyReason::Internal);
  log(log::Severity::Debug, "conflux leg linked (" + std::string(linked->new_set ? "new set" : "existing set") + ")");
  // A replacement leg carries what dead legs lost.
  after_window(id);
}

void ConfluxJoin::on_relink(proto::CircuitHandle circuit, LegRef ref, const cell::ConfluxLinkMsg& msg) {
  // The client lost a leg and moves what it lost onto this one: both ends
  // number this leg again from the LINK/LINKED numbers, and our dead legs'
  // unacknowledged cells go out on it after the LINKED.
  const proto::ConfluxTime now = now_();
  const proto::OriginKey origin = out_.client_channel(circuit).value_or(0);
  auto linked = registry_.on_link(origin, ref.leg, msg);
  if (!linked) {
    log(log::Severity::Info, std::string("relinking CONFLUX_LINK refused: ") +
                                 std::string(proto::to_string(linked.error())));
    return close_leg(circuit, cell::DestroyReason::Protocol);
  }
  SetEntry* e = find_set(ref.set);
  if (e == nullptr || linked->set != ref.set) return close_leg(circuit, cell::DestroyReason::Internal);
  const proto::LinkNumbers ours = e->set->advertise();
  if (auto r = e->set->relink_leg(ref.leg, ours, linked->peer, proto::RttDuration{0}, now); !r) {
    log(log::Severity::Info, std::string("conflux leg not relinked: ") + std::string(proto::to_string(r.error())));
    return set_failed(ref.set, r.error());
  }
  ++totals_.legs_relinked;
  auto reply = registry_.make_linked(ref.leg, ours, now);
  if (!reply) return close_leg(circuit, cell::DestroyReason::Internal);
  if (!out_.send_to_client(circuit, StreamId{0}, *reply)) return close_leg(circuit, cell::DestroyReason::Internal);
  log(log::Severity::Debug, "conflux leg relinked");
  after_window(ref.set);
}

void ConfluxJoin::on_linked_ack(proto::CircuitHandle circuit, LegRef ref) {
  auto rtt = registry_.on_linked_ack(ref.leg, now_());
  if (!rtt) {
    if (rtt.error() == proto::ConfluxError::LinkTimeout) ++totals_.linked_ack_timeouts;
    log(log::Severity::Info, std::string("CONFLUX_LINKED_ACK refused: ") + std::string(proto::to_string(rtt.error())));
    return close_leg(circuit, cell::DestroyReason::Protocol);
  }
  if (SetEntry* e = find_set(ref.set)) {
    e->set->on_link_rtt(ref.leg, std::chrono::duration_cast<proto::RttDuration>(*rtt));
  }
}

}  // namespace conflux::exit
