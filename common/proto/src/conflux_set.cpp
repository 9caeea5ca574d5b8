#include "conflux/proto/conflux_set.hpp"

#include <algorithm>

namespace conflux::proto {
namespace {

SeqCell to_seq_cell(StreamId stream, const cell::RelayMsg& msg) {
  return SeqCell{cell::command_of(msg), stream, cell::encode_relay_msg(msg)};
}

}  // namespace

ConfluxSet::ConfluxSet(SetId id, ReorderBudget& budget, ConfluxSetConfig config)
    : id_(id),
      config_(config),
      tx_(config.max_legs),
      rx_(id, budget, config.receiver),
      retx_(config.retransmit),
      sched_(make_leg_scheduler(config.scheduler, config.sched_params)) {}

ConfluxSet::~ConfluxSet() = default;

std::optional<std::size_t> ConfluxSet::index_of(LegId leg) const noexcept {
  for (std::size_t i = 0; i < legs_.size(); ++i)
    if (legs_[i].id == leg) return i;
  return std::nullopt;
}

bool ConfluxSet::has_leg(LegId leg) const noexcept { return index_of(leg).has_value(); }

LinkNumbers ConfluxSet::advertise() const noexcept { return advertised_numbers(tx_, rx_); }

ConfluxResult<ConfluxOk> ConfluxSet::add_leg(LegId leg, LinkNumbers ours, LinkNumbers peer, RttDuration link_rtt,
                                             ConfluxTime now) {
  if (index_of(leg)) return Unexpected{ConfluxError::DuplicateLeg};
  if (legs_.size() >= config_.max_legs) return Unexpected{ConfluxError::TooManyLegs};
  auto plan = plan_resync(ours, peer, tx_.last_seq_sent());
  if (!plan) return Unexpected{plan.error()};
  if (auto r = tx_.add_leg(leg, plan->send_base); !r) return r;
  if (auto r = rx_.add_leg(leg, plan->recv_base); !r) {
    tx_.remove_leg(leg);
    return r;
  }
  legs_.push_back(Leg{leg, 0, 0, {}, false});
  states_.emplace_back(config_.window);
  if (link_rtt.count() > 0) states_.back().on_link_rtt(link_rtt);
  ++stats_.legs_added;
  if (auto owed = queue_owed(legs_.size() - 1, plan->send_base, now); !owed) {
    // Our own history failed us (ResendUnavailable): the leg is not added
    // and the set cannot go on.
    tx_.remove_leg(leg);
    rx_.remove_leg(leg);
    legs_.pop_back();
    states_.pop_back();
    return Unexpected{owed.error()};
  }
  refresh_blocked();
  return ConfluxOk{};
}

ConfluxResult<ConfluxOk> ConfluxSet::begin_relink(LegId leg) {
  const auto i = index_of(leg);
  if (!i) return Unexpected{ConfluxError::UnknownLeg};
  legs_[*i].relinking = true;
  refresh_blocked();
  return ConfluxOk{};
}

bool ConfluxSet::relinking(LegId leg) const noexcept {
  const auto i = index_of(leg);
  return i && legs_[*i].relinking;
}

ConfluxResult<ConfluxOk> ConfluxSet::relink_leg(LegId leg, LinkNumbers ours, LinkNumbers peer, RttDuration link_rtt,
                                                ConfluxTime now) {
  const auto i = index_of(leg);
  if (!i) return Unexpected{ConfluxError::UnknownLeg};
  auto plan = plan_resync(ours, peer, tx_.last_seq_sent());
  if (!plan) return Unexpected{plan.error()};
  // Check both ends before changing either.
  if (plan->recv_base > rx_.last_delivered()) return Unexpected{ConfluxError::SeqIncoherent};
  Leg& l = legs_[*i];
  orphan_queue(l);
  if (auto r = tx_.rebase_leg(leg, plan->send_base); !r) return r;
  if (auto r = rx_.rebase_leg(leg, plan->recv_base); !r) return r;
  retx_.restart_leg(leg);
  l.relinking = false;
  if (link_rtt.count() > 0) states_[*i].on_link_rtt(link_rtt);
  ++stats_.legs_relinked;
  auto owed = queue_owed(*i, plan->send_base, now);
  if (!owed) return Unexpected{owed.error()};
  stats_.cells_resent_on_relinked += *owed;
  refresh_blocked();
  return ConfluxOk{};
}

void ConfluxSet::orphan_queue(Leg& l) {
  for (auto& q : l.queue)
    if (q.seq) orphans_.push_back(ResendCell{*q.seq, to_seq_cell(q.cell.stream, q.cell.msg)});
  l.queue.clear();
}

ConfluxResult<std::size_t> ConfluxSet::queue_owed(std::size_t index, SeqAbs send_base, ConfluxTime now) {
  Leg& l = legs_[index];
  const LegId leg = l.id;
  // What the dead legs (and a dead replacement's unsent queue) still owe
  // the peer, in order. Taking them forgets the dead legs' history.
  auto owed = retx_.cells_to_resend(dead_, send_base);
  dead_.clear();
  if (!owed) return Unexpected{owed.error()};
  std::vector<ResendCell> cells = std::move(*owed);
  for (auto& o : orphans_)
    if (o.seq > send_base) cells.push_back(std::move(o));
  orphans_.clear();
  std::sort(cells.begin(), cells.end(), [](const ResendCell& a, const ResendCell& b) { return a.seq < b.seq; });
  cells.erase(std::unique(cells.begin(), cells.end(), [](const ResendCell& a, const ResendCell& b) { return a.seq == b.seq; }),
              cells.end());
  std::size_t resent = 0;
  for (auto& c : cells) {
    auto sp = tx_.prepare_resend(leg, c.seq);
    if (!sp) return Unexpected{sp.error()};  // cannot happen: numbers come from our own sender
    auto msg = cell::decode_relay_msg(c.cell.command, c.cell.body);
    if (!msg) continue;  // we encoded it ourselves
    if (sp->switch_first) l.queue.push_back(Queued{LegCell{leg, StreamId{0}, *sp->switch_first}, std::nullopt});
    l.queue.push_back(Queued{LegCell{leg, c.cell.stream, std::move(*msg)}, c.seq});
    ++stats_.cells_resent;
    ++resent;
  }
  // Messages held while no leg could take them go after the resends, in
  // order, through the leg's queue: flush() sends them.
  auto held = std::move(held_);
  held_.clear();
  for (auto& h : held) {
    auto numbered = tx_.prepare_send(leg, cell::command_of(h.msg), h.stream);
    if (!numbered) return Unexpected{numbered.error()};
    proof_.on_sent(h.stream, cell::command_of(h.msg), numbered->seq);
    ++stats_.cells_sent;
    (void)sched_->on_sent(index, now);
    if (numbered->switch_first) {
      ++stats_.switches_sent;
      l.queue.push_back(Queued{LegCell{leg, StreamId{0}, *numbered->switch_first}, std::nullopt});
    }
    l.queue.push_back(Queued{LegCell{leg, h.stream, std::move(h.msg)}, numbered->seq});
  }
  return resent;
}

void ConfluxSet::on_link_rtt(LegId leg, RttDuration rtt) {
  if (auto i = index_of(leg); i && rtt.count() > 0) states_[*i].on_link_rtt(rtt);
}

void ConfluxSet::leg_closed(LegId leg) {
  const auto i = index_of(leg);
  if (!i) return;
  // Cells queued on this leg and not sent yet were numbered for it but are
  // in nobody's history: the next leg takes them with the dead legs' cells.
  orphan_queue(legs_[*i]);
  unconfirmed_.forget_leg(leg);
  tx_.remove_leg(leg);
  rx_.remove_leg(leg);
  sched_->on_leg_removed(*i);
  legs_.erase(legs_.begin() + static_cast<std::ptrdiff_t>(*i));
  states_.erase(states_.begin() + static_cast<std::ptrdiff_t>(*i));
  dead_.push_back(leg);
  ++stats_.legs_closed;
}

bool ConfluxSet::can_send_data(ConfluxTime now) { return leg_for_data(now).has_value(); }

std::optional<std::size_t> ConfluxSet::leg_for_data(ConfluxTime now) {
  const auto choice = sched_->choose_leg(now, states_);
  if (!choice || choice->leg >= legs_.size()) return std::nullopt;
  if (unconfirmed_.span(tx_.last_seq_sent()) < config_.max_unconfirmed_cells) return choice->leg;
  // Far enough ahead that the peer may hold that much out of order: only
  // the leg it waits on may send, which brings that leg's next SENDME even
  // when its last few cells are short of one.
  const auto oldest = unconfirmed_.oldest_leg();
  const auto index = oldest ? index_of(*oldest) : std::nullopt;
  if (index && states_[*index].can_send()) return index;
  ++stats_.unconfirmed_holds;
  return std::nullopt;
}

std::optional<std::size_t> ConfluxSet::leg_for_control() const {
  // The leg the peer's latest cell came on: the peer's scheduler found it
  // the quickest, and a stream SENDME there does not queue behind a slow
  // leg's bottleneck (a saturated bridge delays its upstream cells too).
  // Else the current leg, which keeps a stream's cells together; else the
  // lowest-RTT leg without resends queued; else any but a relinking one.
  if (last_rx_leg_)
    if (auto i = index_of(*last_rx_leg_); i && legs_[*i].queue.empty() && !legs_[*i].relinking) return i;
  if (auto cur = tx_.current_leg())
    if (auto i = index_of(*cur); i && legs_[*i].queue.empty() && !legs_[*i].relinking) return i;
  std::optional<std::size_t> best;
  std::optional<std::size_t> any;
  for (std::size_t i = 0; i < legs_.size(); ++i) {
    if (legs_[i].relinking) continue;
    if (!any) any = i;
    if (!legs_[i].queue.empty()) continue;
    const auto rtt = states_[i].rtt().srtt();
    if (!best || (rtt.count() > 0 && (states_[*best].rtt().srtt().count() == 0 || rtt < states_[*best].rtt().srtt())))
      best = i;
  }
  return best ? best : any;
}

ConfluxResult<std::vector<LegCell>> ConfluxSet::send(StreamId stream, const cell::RelayMsg& msg, ConfluxTime now) {
  const auto command = cell::command_of(msg);
  const auto route = route_leg_cell(command, stream);
  if (!route) return Unexpected{route.error()};
  if (*route != LegCellRoute::Sequenced) return Unexpected{ConfluxError::NotMultiplexed};
  if (command == cell::RelayCommand::Data) {
    const auto index = leg_for_data(now);
    if (!index) return Unexpected{ConfluxError::WindowClosed};
    return send_on(*index, stream, msg, now);
  }
  auto index = leg_for_control();
  if (!index) {
    if (held_.size() >= config_.max_held_messages) return Unexpected{ConfluxError::RetransmitFull};
    held_.push_back(Held{stream, msg});
    return std::vector<LegCell>{};
  }
  return send_on(*index, stream, msg, now);
}

ConfluxResult<std::vector<LegCell>> ConfluxSet::send_on(std::size_t index, StreamId stream, const cell::RelayMsg& msg,
                                                        ConfluxTime now) {
  Leg& l = legs_[index];
  const auto command = cell::command_of(msg);
  auto plan = tx_.prepare_send(l.id, command, stream);
  if (!plan) return Unexpected{plan.error()};
  proof_.on_sent(stream, command, plan->seq);
  ++stats_.cells_sent;
  if (plan->switch_first) ++stats_.switches_sent;
  (void)sched_->on_sent(index, now);
  if (!l.queue.empty()) {
    // Behind the resends on this leg: the leg's order is the wire order.
    if (plan->switch_first) l.queue.push_back(Queued{LegCell{l.id, StreamId{0}, *plan->switch_first}, std::nullopt});
    l.queue.push_back(Queued{LegCell{l.id, stream, msg}, plan->seq});
    return std::vector<LegCell>{};
  }
  std::vector<LegCell> out;
  if (plan->switch_first) out.push_back(LegCell{l.id, StreamId{0}, *plan->switch_first});
  out.push_back(LegCell{l.id, stream, msg});
  if (command == cell::RelayCommand::Data) (void)states_[index].on_data_sent(now);
  record_sent(l, plan->seq, out.back());
  return out;
}

void ConfluxSet::record_sent(Leg& l, SeqAbs seq, const LegCell& c) {
  // A full history only costs us the ability to resend this leg's cells if
  // it dies (the set closes then, as tor's would); the set carries on.
  (void)retx_.on_cell_sent(l.id, seq, to_seq_cell(c.stream, c.msg));
  if (std::holds_alternative<cell::DataMsg>(c.msg)) unconfirmed_.on_data_sent(l.id, seq);
  ++l.cells_sent;
}

std::vector<LegCell> ConfluxSet::flush(ConfluxTime now) {
  std::vector<LegCell> out;
  for (std::size_t i = 0; i < legs_.size(); ++i) {
    Leg& l = legs_[i];
    // A relinking leg's queue is numbered again when its LINKED comes.
    while (!l.queue.empty() && !l.relinking) {
      Queued& q = l.queue.front();
      const bool data = std::holds_alternative<cell::DataMsg>(q.cell.msg);
      if (data && states_[i].inflight() >= states_[i].cwnd()) break;
      if (data) (void)states_[i].on_data_sent(now);
      if (q.seq) record_sent(l, *q.seq, q.cell);
      out.push_back(std::move(q.cell));
      l.queue.pop_front();
    }
  }
  refresh_blocked();
  return out;
}

void ConfluxSet::refresh_blocked() {
  // The scheduler must not put new DATA on a leg that still owes resends,
  // nor on one being relinked, nor on one blocked on its channel.
  for (std::size_t i = 0; i < legs_.size(); ++i)
    states_[i].set_blocked(!legs_[i].queue.empty() || legs_[i].relinking || legs_[i].channel_blocked);
}

ConfluxResult<ConfluxOk> ConfluxSet::on_switch(LegId leg, const cell::ConfluxSwitchMsg& msg) {
  auto r = rx_.on_switch(leg, msg.relative_seq);
  if (r) ++stats_.switches_received;
  return r;
}

ConfluxResult<std::vector<DeliveredMsg>> ConfluxSet::on_cell(LegId leg, StreamId stream, const cell::RelayMsg& msg,
                                                             ConfluxTime now) {
  const auto i = index_of(leg);
  if (!i) return Unexpected{ConfluxError::UnknownLeg};
  auto arrival = rx_.on_cell(leg, to_seq_cell(stream, msg), now);
  if (!arrival) return Unexpected{arrival.error()};
  ++legs_[*i].cells_received;
  ++stats_.cells_received;
  last_rx_leg_ = leg;
  pressure_ = arrival->memory_pressure;
  std::vector<DeliveredMsg> out;
  if (arrival->fate == CellFate::DuplicateDropped) {
    ++stats_.duplicates_dropped;
    return out;
  }
  stats_.max_reorder_cells = std::max(stats_.max_reorder_cells, rx_.queued_cells());
  if (arrival->fate == CellFate::Queued) return out;
  auto deliver = [&](const SeqCell& c) {
    auto m = cell::decode_relay_msg(c.command, c.body);
    if (m) out.push_back(DeliveredMsg{c.stream, std::move(*m)});
    ++stats_.cells_delivered;
    if (const auto proven = proof_.on_delivered(c.stream, c.command)) retx_.on_peer_delivered(*proven);
  };
  if (arrival->deliver) deliver(*arrival->deliver);
  while (auto next = rx_.pop_ready()) deliver(*next);
  return out;
}

ConfluxResult<ConfluxOk> ConfluxSet::on_leg_sendme(LegId leg, ConfluxTime now) {
  const auto i = index_of(leg);
  if (!i) return Unexpected{ConfluxError::UnknownLeg};
  if (states_[*i].on_sendme(now) == LegSendmeResult::Unexpected) return Unexpected{ConfluxError::AckBeyondSent};
  sched_->on_sendme(*i, now);
  unconfirmed_.on_acked(leg, states_[*i].sendme_inc());
  return retx_.on_leg_acked(leg, CellCount{states_[*i].sendme_inc()});
}

void ConfluxSet::set_leg_cc(LegId leg, const LegCcView& cc) {
  if (const auto i = index_of(leg)) states_[*i].on_cc(cc);
}

void ConfluxSet::set_leg_channel_blocked(LegId leg, bool blocked) {
  const auto i = index_of(leg);
  if (!i || legs_[*i].channel_blocked == blocked) return;
  legs_[*i].channel_blocked = blocked;
  refresh_blocked();
}

std::vector<ConfluxLegInfo> ConfluxSet::legs() const {
  std::vector<ConfluxLegInfo> out;
  for (std::size_t i = 0; i < legs_.size(); ++i) {
    const auto& s = states_[i];
    out.push_back(ConfluxLegInfo{legs_[i].id, s.rtt().srtt(), s.rtt().min_rtt(), s.cwnd(), s.inflight(),
                                 legs_[i].cells_sent, legs_[i].cells_received, legs_[i].queue.size()});
  }
  return out;
}

}  // namespace conflux::proto
