#include "conflux/proto/dos_guard.hpp"

#include <algorithm>

namespace conflux::proto {

DosAddress dos_address_v4(const std::array<std::uint8_t, 4>& v4) noexcept {
  DosAddress a{};
  a[10] = 0xff;
  a[11] = 0xff;
  std::copy(v4.begin(), v4.end(), a.begin() + 12);
  return a;
}

void SecondsBucket::reset(std::uint32_t, std::uint32_t burst, std::uint64_t now) noexcept {
  tokens_ = burst;
  last_ = now;
}

void SecondsBucket::refill(std::uint32_t rate, std::uint32_t burst, std::uint64_t now) noexcept {
  if (now <= last_) {
    // A clock that went back refills nothing, and a burst lowered since is
    // applied at once.
    tokens_ = std::min(tokens_, burst);
    if (now < last_) last_ = now;
    return;
  }
  const std::uint64_t earned = (now - last_) * rate;
  tokens_ = static_cast<std::uint32_t>(std::min<std::uint64_t>(std::uint64_t{tokens_} + earned, burst));
  last_ = now;
}

std::size_t DosGuard::AddressHash::operator()(const DosAddress& a) const noexcept {
  // FNV-1a: the addresses are chosen by clients, but the map is bounded and
  // only rehashed on growth, so a cheap hash is enough.
  std::size_t h = 1469598103934665603ULL;
  for (auto b : a) h = (h ^ b) * 1099511628211ULL;
  return h;
}

DosGuard::DosGuard(DosParams params, std::size_t max_addresses, Random random)
    : params_(params), max_addresses_(std::max<std::size_t>(max_addresses, 1)), random_(std::move(random)) {}

void DosGuard::set_params(const DosParams& params) {
  params_ = params;
  if (!params_.stream_enabled) circuits_.clear();
}

void DosGuard::set_relay_addresses(std::vector<DosAddress> addresses) {
  relays_.clear();
  relays_.insert(addresses.begin(), addresses.end());
}

std::uint32_t DosGuard::concurrent(const DosAddress& a) const {
  auto it = clients_.find(a);
  return it == clients_.end() ? 0 : it->second.concurrent;
}

DosGuard::Client* DosGuard::find(const DosAddress& a) {
  auto it = clients_.find(a);
  return it == clients_.end() ? nullptr : &it->second;
}

DosGuard::Client* DosGuard::find_or_add(const DosAddress& a, std::uint64_t now) {
  if (Client* c = find(a)) {
    c->last_seen = now;
    return c;
  }
  if (clients_.size() >= max_addresses_) forget_idle();
  if (clients_.size() >= max_addresses_) return nullptr;  // every address holds a connection
  Client& c = clients_[a];
  c.connects.reset(params_.conn_connect_rate, params_.conn_connect_burst, now);
  c.last_seen = now;
  return &c;
}

void DosGuard::forget_idle() {
  // The least recently seen half of the addresses without a connection: one
  // sweep makes room for many newcomers.
  std::vector<std::pair<std::uint64_t, DosAddress>> idle;
  for (const auto& [a, c] : clients_)
    if (c.concurrent == 0) idle.emplace_back(c.last_seen, a);
  if (idle.empty()) return;
  const std::size_t drop = std::max<std::size_t>(idle.size() / 2, 1);
  std::nth_element(idle.begin(), idle.begin() + static_cast<std::ptrdiff_t>(drop - 1), idle.end());
  for (std::size_t i = 0; i < drop; ++i) clients_.erase(idle[i].second);
  stats_.addresses_forgotten += drop;
}

std::uint64_t DosGuard::mark_until(std::uint64_t now, std::uint32_t period) const {
  // tor: period + crypto_rand_int_range(1, period / 2).
  const std::uint32_t hi = std::max<std::uint32_t>(period / 2, 1);
  const std::uint32_t extra = random_ ? std::clamp(random_(1, hi), std::uint32_t{1}, hi) : 1;
  return now + period + extra;
}

bool DosGuard::accept_connection(const DosAddress& a, std::uint64_t now) {
  if (!params_.conn_enabled) return true;
  Client* c = find(a);
  if (c == nullptr) return true;
  const bool defend = params_.conn_defense == DosConnDefense::Close;
  if (c->conn_marked_until >= now) {
    ++stats_.conn_rejected;
    return !defend;
  }
  // Expired: it may be marked again.
  c->conn_marked_until = 0;
  if (c->concurrent > params_.conn_max_concurrent) {
    ++stats_.concurrent_conn_rejected;
    return !defend;
  }
  return true;
}

bool DosGuard::client_connection_opened(const DosAddress& a, std::uint64_t now) {
  if (!params_.cc_enabled && !params_.conn_enabled) return false;
  if (is_relay_address(a)) return false;
  Client* c = find_or_add(a, now);
  if (c == nullptr) return false;
  ++c->concurrent;
  c->connects.refill(params_.conn_connect_rate, params_.conn_connect_burst, now);
  c->connects.take();
  // Marked once per exhaustion, so a client that keeps connecting does not
  // push its own release further and further (tor's rule).
  if (c->connects.tokens() == 0 && c->conn_marked_until == 0)
    c->conn_marked_until = mark_until(now, params_.conn_connect_defense_time_period);
  return true;
}

void DosGuard::client_connection_closed(const DosAddress& a) {
  Client* c = find(a);
  if (c == nullptr || c->concurrent == 0) return;
  --c->concurrent;
}

void DosGuard::refill_circuits(Client& c, std::uint64_t now) const {
  if (c.circuits_refilled == 0) {
    c.circuits.reset(params_.cc_rate, params_.cc_burst, now);
  } else {
    c.circuits.refill(params_.cc_rate, params_.cc_burst, now);
  }
  c.circuits_refilled = now == 0 ? 1 : now;
}

bool DosGuard::refuse_create(const DosAddress& a, std::uint64_t now) {
  if (!params_.cc_enabled) return false;
  Client* c = find(a);
  if (c == nullptr) return false;  // not a counted client connection
  c->last_seen = now;
  refill_circuits(*c, now);
  c->circuits.take();
  if (c->circuits.tokens() == 0 && c->concurrent >= params_.cc_min_connections) {
    if (c->cc_marked_until == 0) ++stats_.marked_address;
    // Marked again while it keeps going: its defence lasts longer.
    c->cc_marked_until = mark_until(now, params_.cc_defense_time_period);
  }
  if (c->cc_marked_until >= now && c->cc_marked_until != 0) {
    ++stats_.circuit_rejected;
    return params_.cc_defense == DosCircuitDefense::RefuseCell;
  }
  return false;
}

void DosGuard::circuit_queue_filled(const DosAddress& a, std::uint64_t now) {
  if (!params_.cc_enabled || params_.num_circ_max_outq == 0) return;
  Client* c = find(a);
  if (c == nullptr || (c->cc_marked_until != 0 && c->cc_marked_until >= now)) return;
  if (++c->max_outq_hits < params_.num_circ_max_outq) return;
  if (c->cc_marked_until == 0) ++stats_.marked_address_maxq;
  c->cc_marked_until = mark_until(now, params_.cc_defense_time_period);
  c->max_outq_hits = 0;
}

StreamDosVerdict DosGuard::stream_request(std::uint64_t circuit, std::uint64_t now) {
  if (!params_.stream_enabled) return StreamDosVerdict::Allow;
  auto [it, fresh] = circuits_.try_emplace(circuit);
  if (fresh) {
    it->second.reset(params_.stream_rate, params_.stream_burst, now);
  } else {
    it->second.refill(params_.stream_rate, params_.stream_burst, now);
  }
  if (it->second.tokens() > 0) {
    it->second.take();
    return StreamDosVerdict::Allow;
  }
  ++stats_.stream_rejected;
  switch (params_.stream_defense) {
    case DosStreamDefense::None: return StreamDosVerdict::Allow;
    case DosStreamDefense::Refuse: return StreamDosVerdict::Refuse;
    case DosStreamDefense::CloseCircuit: return StreamDosVerdict::CloseCircuit;
  }
  return StreamDosVerdict::Allow;
}

void DosGuard::circuit_closed(std::uint64_t circuit) { circuits_.erase(circuit); }

}  // namespace conflux::proto
