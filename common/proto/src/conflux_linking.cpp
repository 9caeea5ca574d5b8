#include "conflux/proto/conflux_linking.hpp"

#include <algorithm>

#include "conflux/crypto/ct.hpp"

namespace conflux::proto {

namespace {

LinkNumbers numbers_of(const cell::ConfluxLinkFields& f) noexcept {
  return LinkNumbers{f.last_seqno_sent, f.last_seqno_recv};
}

void decrement(std::map<OriginKey, std::size_t>& counts, OriginKey origin) noexcept {
  const auto it = counts.find(origin);
  if (it == counts.end()) return;
  if (--it->second == 0) counts.erase(it);
}

std::size_t count_of(const std::map<OriginKey, std::size_t>& counts, OriginKey origin) noexcept {
  const auto it = counts.find(origin);
  return it == counts.end() ? 0 : it->second;
}

}  // namespace

// ---- client ----

bool ClientLinker::launch_budget_left() const noexcept {
  return launches_ < config_.legs_per_set + config_.max_leg_retries;
}

ConfluxResult<ConfluxOk> ClientLinker::note_launch() noexcept {
  if (!launch_budget_left()) return Unexpected{ConfluxError::TooManyLegs};
  ++launches_;
  return ConfluxOk{};
}

ConfluxResult<cell::ConfluxLinkMsg> ClientLinker::start_leg(LegId leg, LinkNumbers ours, cell::ConfluxUx ux,
                                                            ConfluxTime now) {
  if (legs_.contains(leg)) return Unexpected{ConfluxError::DuplicateLeg};
  if (legs_.size() >= config_.max_legs) return Unexpected{ConfluxError::TooManyLegs};
  legs_.emplace(leg, Leg{false, now, now + config_.linked_timeout});
  cell::ConfluxLinkMsg msg;
  msg.nonce = nonce_;
  msg.last_seqno_sent = ours.last_seqno_sent;
  msg.last_seqno_recv = ours.last_seqno_recv;
  msg.desired_ux = ux;
  return msg;
}

ConfluxResult<cell::ConfluxLinkMsg> ClientLinker::start_relink(LegId leg, LinkNumbers ours, cell::ConfluxUx ux,
                                                               ConfluxTime now) {
  // The linker may have been renewed since the leg linked, so it need not
  // know the leg; one it knows must be linked (no LINK is outstanding).
  if (const auto it = legs_.find(leg); it != legs_.end()) {
    if (!it->second.linked) return Unexpected{ConfluxError::DuplicateLeg};
    legs_.erase(it);
  }
  return start_leg(leg, ours, ux, now);
}

ConfluxResult<ClientLinked> ClientLinker::on_linked(LegId leg, const cell::ConfluxLinkedMsg& msg, ConfluxTime now) {
  const auto it = legs_.find(leg);
  if (it == legs_.end() || it->second.linked) return Unexpected{ConfluxError::UnexpectedLinked};
  if (!crypto::ct_equal(msg.nonce, nonce_)) return Unexpected{ConfluxError::NonceMismatch};
  if (now > it->second.deadline) return Unexpected{ConfluxError::LinkTimeout};
  it->second.linked = true;
  ClientLinked out;
  out.peer = numbers_of(msg);
  out.peer_ux = msg.desired_ux;
  out.peer_resumes = msg.offers_resumption;
  out.rtt = now - it->second.sent;
  return out;
}

std::vector<LegId> ClientLinker::expired(ConfluxTime now) {
  std::vector<LegId> out;
  for (const auto& [id, l] : legs_)
    if (!l.linked && now > l.deadline) out.push_back(id);
  for (const LegId id : out) legs_.erase(id);
  return out;
}

std::optional<ConfluxTime> ClientLinker::next_deadline() const noexcept {
  std::optional<ConfluxTime> out;
  for (const auto& [id, l] : legs_)
    if (!l.linked && (!out || l.deadline < *out)) out = l.deadline;
  return out;
}

std::size_t ClientLinker::pending_legs() const noexcept {
  return static_cast<std::size_t>(
      std::count_if(legs_.begin(), legs_.end(), [](const auto& kv) { return !kv.second.linked; }));
}

std::size_t ClientLinker::linked_legs() const noexcept { return legs_.size() - pending_legs(); }

// ---- exit ----

std::optional<SetId> ExitLinkRegistry::find_set(const ConfluxNonce& nonce) const noexcept {
  // Every set is compared, so the time taken does not depend on which one
  // (if any) matches, nor on how much of a nonce matches.
  std::optional<SetId> found;
  for (const auto& [id, s] : sets_)
    if (crypto::ct_equal(s.nonce, nonce)) found = id;
  return found;
}

ConfluxResult<ExitLinked> ExitLinkRegistry::on_relink(LegId leg, const cell::ConfluxLinkMsg& msg) {
  Leg& l = legs_.at(leg);
  if (l.ack != AckState::Acked) return Unexpected{ConfluxError::UnexpectedLink};
  Set& s = sets_.at(l.set);
  if (!crypto::ct_equal(s.nonce, msg.nonce)) return Unexpected{ConfluxError::NonceMismatch};
  if (s.relinks >= config_.max_relinks_per_set) return Unexpected{ConfluxError::TooManyLegs};
  ++s.relinks;
  l.ack = AckState::NotSent;  // make_linked, then one LINKED_ACK again
  ExitLinked out;
  out.set = l.set;
  out.relink = true;
  out.peer = numbers_of(msg);
  out.peer_ux = msg.desired_ux;
  return out;
}

ConfluxResult<ExitLinked> ExitLinkRegistry::on_link(OriginKey origin, LegId leg, const cell::ConfluxLinkMsg& msg) {
  if (legs_.contains(leg)) return on_relink(leg, msg);
  if (count_of(origin_legs_, origin) >= config_.max_legs_per_origin) {
    return Unexpected{ConfluxError::TooManyOriginLegs};
  }
  ExitLinked out;
  out.peer = numbers_of(msg);
  out.peer_ux = msg.desired_ux;
  if (const auto existing = find_set(msg.nonce)) {
    Set& s = sets_.at(*existing);
    if (s.legs >= config_.max_legs_per_set) return Unexpected{ConfluxError::TooManyLegs};
    ++s.legs;
    out.set = *existing;
  } else {
    if (sets_.size() >= config_.max_sets || count_of(origin_sets_, origin) >= config_.max_sets_per_origin) {
      return Unexpected{ConfluxError::TooManySets};
    }
    out.set = SetId{next_set_++};
    out.new_set = true;
    sets_.emplace(out.set, Set{msg.nonce, origin, 1, false});
    ++origin_sets_[origin];
  }
  legs_.emplace(leg, Leg{out.set, origin, AckState::NotSent, {}, {}});
  ++origin_legs_[origin];
  return out;
}

ConfluxResult<cell::ConfluxLinkedMsg> ExitLinkRegistry::make_linked(LegId leg, LinkNumbers ours, ConfluxTime now) {
  const auto it = legs_.find(leg);
  if (it == legs_.end()) return Unexpected{ConfluxError::UnknownLeg};
  if (it->second.ack != AckState::NotSent) return Unexpected{ConfluxError::UnexpectedLink};
  it->second.ack = AckState::Awaiting;
  it->second.linked_sent = now;
  it->second.deadline = now + config_.linked_ack_timeout;
  cell::ConfluxLinkedMsg msg;
  msg.nonce = sets_.at(it->second.set).nonce;
  msg.last_seqno_sent = ours.last_seqno_sent;
  msg.last_seqno_recv = ours.last_seqno_recv;
  // tor's exits always ask for MIN_LATENCY (DEFAULT_EXIT_UX).
  msg.desired_ux = cell::ConfluxUx::MinLatency;
  msg.offers_resumption = config_.offer_resumption;
  return msg;
}

ConfluxResult<ConfluxClock::duration> ExitLinkRegistry::on_linked_ack(LegId leg, ConfluxTime now) {
  const auto it = legs_.find(leg);
  if (it == legs_.end() || it->second.ack == AckState::NotSent) return Unexpected{ConfluxError::UnexpectedLinkedAck};
  if (it->second.ack == AckState::Acked) return Unexpected{ConfluxError::DuplicateLinkedAck};
  if (now > it->second.deadline) return Unexpected{ConfluxError::LinkTimeout};
  it->second.ack = AckState::Acked;
  return now - it->second.linked_sent;
}

std::vector<LegId> ExitLinkRegistry::expired(ConfluxTime now) const {
  std::vector<LegId> out;
  for (const auto& [id, l] : legs_)
    if (l.ack == AckState::Awaiting && now > l.deadline) out.push_back(id);
  return out;
}

std::optional<ExitLegRemoved> ExitLinkRegistry::remove_leg(LegId leg) {
  const auto it = legs_.find(leg);
  if (it == legs_.end()) return std::nullopt;
  const Leg l = it->second;
  legs_.erase(it);
  decrement(origin_legs_, l.origin);
  ExitLegRemoved out{l.set, false};
  const auto s = sets_.find(l.set);
  if (s != sets_.end() && --s->second.legs == 0 && !s->second.held) {
    erase_set(s);
    out.set_empty = true;
  }
  return out;
}

void ExitLinkRegistry::hold(SetId set) noexcept {
  if (const auto it = sets_.find(set); it != sets_.end()) it->second.held = true;
}

void ExitLinkRegistry::forget_set(SetId set) {
  const auto s = sets_.find(set);
  if (s == sets_.end()) return;
  for (auto it = legs_.begin(); it != legs_.end();) {
    if (it->second.set == set) {
      decrement(origin_legs_, it->second.origin);
      it = legs_.erase(it);
    } else {
      ++it;
    }
  }
  erase_set(s);
}

void ExitLinkRegistry::erase_set(std::map<SetId, Set>::iterator it) noexcept {
  decrement(origin_sets_, it->second.creator);
  sets_.erase(it);
}

std::optional<SetId> ExitLinkRegistry::set_of(LegId leg) const noexcept {
  const auto it = legs_.find(leg);
  if (it == legs_.end()) return std::nullopt;
  return it->second.set;
}

std::size_t ExitLinkRegistry::origin_sets(OriginKey origin) const noexcept { return count_of(origin_sets_, origin); }
std::size_t ExitLinkRegistry::origin_legs(OriginKey origin) const noexcept { return count_of(origin_legs_, origin); }

}  // namespace conflux::proto
