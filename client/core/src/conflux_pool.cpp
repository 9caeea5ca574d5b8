#include "conflux/client/conflux_pool.hpp"

#include <algorithm>

namespace conflux::client {

ConfluxPool::ConfluxPool(const net::Clock& clock, Options options, Hooks hooks, net::LogSink log)
    : clock_(clock), options_(std::move(options)), hooks_(std::move(hooks)), log_(std::move(log)),
      budget_(options_.budget), expiry_(options_.new_circuit_period) {}

ConfluxPool::~ConfluxPool() {
  shutdown();
  sets_.clear();
}

ConfluxTunnel* ConfluxPool::find(const StreamCarrier& c) const {
  // By serial, not by downcast: only sets this pool still holds.
  auto it = sets_.find(c.serial());
  return it != sets_.end() && static_cast<const StreamCarrier*>(it->second.get()) == &c ? it->second.get() : nullptr;
}

bool ConfluxPool::exit_allows(const ConfluxTunnel& t, std::uint16_t port) const {
  return !hooks_.exit_allows || hooks_.exit_allows(t.exit_policy(), port);
}

bool ConfluxPool::suits(const ConfluxTunnel& t, const StreamNeeds& needs, bool linking_ok) const {
  const auto state = t.state();
  if (state == ConfluxTunnel::State::Closed || t.retired() || !t.has_exit()) return false;
  if (state == ConfluxTunnel::State::Linking && !linking_ok) return false;
  if (needs.avoid_exits.count(t.exit_identity()) != 0) return false;
  if (t.guard_client() != needs.guard_client) return false;
  if (needs.port && !exit_allows(t, *needs.port)) return false;
  if (t.dirty_since()) {
    if (t.isolation() != needs.isolation) return false;
    if (clock_.now() - *t.dirty_since() > options_.max_dirtiness) return false;
  }
  return t.stream_count() < options_.max_streams_per_set;
}

ConfluxTunnel* ConfluxPool::find_open(const StreamNeeds& needs) const {
  // A set this isolation group already uses, then a clean one.
  ConfluxTunnel* clean = nullptr;
  for (const auto& [serial, t] : sets_) {
    if (!suits(*t, needs, false)) continue;
    if (t->dirty_since()) return t.get();
    if (clean == nullptr) clean = t.get();
  }
  return clean;
}

std::size_t ConfluxPool::alive() const {
  return static_cast<std::size_t>(std::count_if(sets_.begin(), sets_.end(), [](const auto& kv) {
    return kv.second->state() != ConfluxTunnel::State::Closed;
  }));
}

std::size_t ConfluxPool::linking_for(const StreamNeeds& needs) const {
  return static_cast<std::size_t>(std::count_if(sets_.begin(), sets_.end(), [&](const auto& kv) {
    return kv.second->state() == ConfluxTunnel::State::Linking && suits(*kv.second, needs, true);
  }));
}

net::awaitable<StreamCarrier*> ConfluxPool::acquire(StreamNeeds needs, Clock::time_point deadline, bool* no_exit) {
  if (needs.port) predicted_port_ = needs.port;
  bool refused_port = false;
  std::string why;
  const auto until = std::min(deadline, clock_.now() + options_.set_wait);
  const std::uint64_t refusals = refusals_;
  ConfluxTunnel* set = co_await wait_for_set(needs, until, refused_port, why);
  if (set != nullptr || shutting_down_ || refusals != refusals_) co_return set;
  if (refused_port) {
    // No exit allows the port: a single circuit would find none either.
    if (no_exit != nullptr) *no_exit = true;
    co_return nullptr;
  }
  if (hooks_.fallback == nullptr) co_return nullptr;
  ++streams_fell_back_;
  net::emit(log_, net::LogLevel::Info, "No Conflux set for a stream (" + why + "): it uses a single circuit");
  co_return co_await hooks_.fallback->acquire(std::move(needs), deadline, no_exit);
}

net::awaitable<ConfluxTunnel*> ConfluxPool::wait_for_set(const StreamNeeds& needs, Clock::time_point until,
                                                         bool& no_exit, std::string& why) {
  Wakeup wake(co_await net::asio::this_coro::executor);
  waiters_.add(wake, needs);
  std::optional<std::uint64_t> mine;  // the set launched for this stream
  ConfluxTunnel* found = nullptr;
  why = "no set linked within " + std::to_string(options_.set_wait.count()) + " s";
  const std::uint64_t refusals = refusals_;
  while (!shutting_down_ && refusals == refusals_) {
    found = find_open(needs);
    if (found != nullptr) break;
    if (mine) {
      auto it = sets_.find(*mine);
      const bool closed = it == sets_.end() || it->second->state() == ConfluxTunnel::State::Closed;
      if (closed && it != sets_.end() && it->second->stats().legs_linked == 0) {
        why = "its set failed to link";
        break;
      }
      if (closed) mine.reset();  // it linked, served another stream and went
    }
    if (clock_.now() >= until) break;
    // One linking set per group of waiting streams (waiting_streams.hpp):
    // groups that arrive together do not queue behind one set (a linked set
    // goes to one stream, then serves the rest of its group).
    if (linking_for(needs) < waiters_.groups(needs.guard_client)) {
      if (alive() >= options_.max_sets && !make_room()) {
        why = slots_taken();
        break;
      }
      PathProblem problem;
      if (ConfluxTunnel* t = launch_set(needs.port, &problem, &needs.avoid_exits, needs.guard_client)) {
        mine = t->serial();
      } else if (problem.no_exit_for_port) {
        no_exit = true;
        break;
      }
    }
    co_await wake.wait_until(std::min(until, clock_.now() + std::chrono::seconds(1)));
  }
  waiters_.remove(wake);
  co_return found;
}

std::vector<CarrierUse> ConfluxPool::uses() const {
  std::vector<CarrierUse> out;
  for (const auto& [serial, t] : sets_) {
    if (t->state() == ConfluxTunnel::State::Closed) continue;
    CarrierUse u;
    u.serial = serial;
    u.streams = t->stream_count();
    u.dirty_since = t->dirty_since();
    if (auto it = last_used_.find(serial); it != last_used_.end()) u.last_used = it->second;
    u.retired = t->retired();
    // A clean set still linking is being made for a stream waiting now.
    u.reserved = !t->dirty_since() && t->state() == ConfluxTunnel::State::Linking;
    out.push_back(u);
  }
  return out;
}

bool ConfluxPool::make_room() {
  const auto victim = carrier_to_evict(uses());
  if (!victim) return false;
  ++sets_evicted_;
  sets_.at(*victim)->close(cell::DestroyReason::Finished,
                           "idle, closed to make room (" + std::to_string(options_.max_sets) + " sets at most)");
  return true;
}

std::string ConfluxPool::slots_taken() const {
  std::size_t busy = 0, linking = 0;
  for (const auto& u : uses()) {
    if (u.streams != 0) ++busy;
    if (u.reserved) ++linking;
  }
  return "all " + std::to_string(options_.max_sets) + " set slots are taken: " + std::to_string(busy) +
         " with streams, " + std::to_string(linking) + " linking for other streams";
}

void ConfluxPool::expire() {
  for (const std::uint64_t serial : expired_carriers(uses(), clock_.now(), options_.max_dirtiness)) {
    ++sets_expired_;
    sets_.at(serial)->close(cell::DestroyReason::Finished, "dirty and unused");
  }
}

ConfluxTunnel* ConfluxPool::launch_set(std::optional<std::uint16_t> port, PathProblem* problem,
                                       const std::set<RelayIdentity>* avoid_exits, const std::string& guard_client) {
  if (shutting_down_ || !hooks_.launch_leg || alive() >= options_.max_sets) return nullptr;
  const std::uint64_t serial = next_serial_++;
  ConfluxTunnel::Hooks h;
  h.launch_leg = [this](ConfluxTunnel& t, const LegRequest& r) { return launch_leg(t, r); };
  h.closed = [this](ConfluxTunnel& t, std::string_view) { on_closed(t); };
  h.memory_pressure = [this] { shed(); };
  h.leg_linked = [this] { wake_all(); };
  auto tunnel = std::make_unique<ConfluxTunnel>(serial, options_.tunnel, budget_, std::move(h), clock_, log_);
  ConfluxTunnel* raw = tunnel.get();
  raw->set_guard_client(guard_client);
  sets_.emplace(serial, std::move(tunnel));
  touch(serial);
  last_problem_ = PathProblem{};
  // The first leg picks the set's exit (synchronously, inside start).
  first_leg_avoids_ = avoid_exits;
  raw->start(port);
  first_leg_avoids_ = nullptr;
  if (!raw->has_exit()) {
    // Not even the first leg could be launched: no set (the path problem
    // was logged by the circuit pool).
    if (problem != nullptr) *problem = last_problem_;
    raw->close(cell::DestroyReason::Finished, "no path for its first leg");
    return nullptr;
  }
  ++sets_launched_;
  net::emit(log_, net::LogLevel::Info,
            "Conflux set " + std::to_string(serial) + " launched with " + std::to_string(options_.tunnel.num_legs) +
                " legs");
  return raw;
}

LegCircuit* ConfluxPool::launch_leg(ConfluxTunnel& t, const LegRequest& r) {
  if (shutting_down_ || !hooks_.launch_leg) return nullptr;
  PathRequest req;
  req.port = r.port;
  req.exit = r.exit;
  req.first_hop = r.first_hop;
  req.conflux_leg = true;
  req.guard_client = t.guard_client();
  // A stream an exit refused must not get a set to that exit again.
  if (!r.exit && first_leg_avoids_ != nullptr) req.avoid_exits = *first_leg_avoids_;
  req.exclude = r.exclude_middles;
  req.exclude.insert(r.exclude_first_hops.begin(), r.exclude_first_hops.end());
  PathProblem problem;
  LegCircuit* c = hooks_.launch_leg(req, t, &problem);
  if (c == nullptr && problem.first_hop_unusable && req.first_hop) {
    // The dead leg's guard is down (or gone): another one.
    req.first_hop.reset();
    problem = PathProblem{};
    c = hooks_.launch_leg(req, t, &problem);
  }
  if (c == nullptr && problem.no_compatible_first_hop && !r.exclude_first_hops.empty()) {
    // No other guard or bridge fits (one bridge, say): share a first hop
    // with another leg rather than have no second leg, as tor does.
    for (const auto& id : r.exclude_first_hops)
      if (r.exclude_middles.count(id) == 0) req.exclude.erase(id);
    problem = PathProblem{};
    c = hooks_.launch_leg(req, t, &problem);
  }
  last_problem_ = problem;
  return c;
}

void ConfluxPool::claim(StreamCarrier& carrier, const std::string& isolation) {
  ConfluxTunnel* t = find(carrier);
  if (t == nullptr) {
    if (hooks_.fallback != nullptr) hooks_.fallback->claim(carrier, isolation);
    return;
  }
  touch(t->serial());
  if (t->streams_attached() <= 1) t->set_isolation(isolation);
}

void ConfluxPool::stream_done(StreamCarrier& carrier) {
  ConfluxTunnel* t = find(carrier);
  if (t == nullptr) {
    if (hooks_.fallback != nullptr) hooks_.fallback->stream_done(carrier);
    return;
  }
  touch(t->serial());
  if (t->state() == ConfluxTunnel::State::Closed || t->stream_count() != 0 || !t->dirty_since()) return;
  if (t->retired() || clock_.now() - *t->dirty_since() > options_.max_dirtiness) {
    ++sets_expired_;
    t->close(cell::DestroyReason::Finished, "dirty and unused");
  }
}

void ConfluxPool::retire(StreamCarrier& carrier) {
  ConfluxTunnel* t = find(carrier);
  if (t == nullptr) {
    if (hooks_.fallback != nullptr) hooks_.fallback->retire(carrier);
    return;
  }
  t->retire();
  if (t->state() != ConfluxTunnel::State::Closed && t->stream_count() == 0)
    t->close(cell::DestroyReason::Finished, "retired");
}

void ConfluxPool::retire_all() {
  std::vector<ConfluxTunnel*> all;
  for (const auto& [serial, t] : sets_)
    if (t->state() != ConfluxTunnel::State::Closed) all.push_back(t.get());
  for (ConfluxTunnel* t : all) retire(*t);
}

void ConfluxPool::shed() {
  // The sets holding the oldest out-of-order data go first (prop 329 4.1).
  for (const proto::SetId id : budget_.sets_to_close()) {
    auto it = sets_.find(id.value());
    if (it == sets_.end() || it->second->state() == ConfluxTunnel::State::Closed) continue;
    ++sets_shed_;
    it->second->close(cell::DestroyReason::ResourceLimit, "out-of-order memory pressure");
  }
}

void ConfluxPool::on_closed(ConfluxTunnel& t) {
  // A set that never got a leg was never launched, and waking the streams
  // for it would only have them try the same failed path choice again, at
  // once, over and over (they retry every second anyway).
  if (!t.has_exit()) return;
  ++sets_closed_;
  wake_all();
}

void ConfluxPool::reap() {
  for (auto it = sets_.begin(); it != sets_.end();) {
    if (it->second->state() != ConfluxTunnel::State::Closed) {
      ++it;
      continue;
    }
    const auto& s = it->second->stats();
    closed_stats_.legs_launched += s.legs_launched;
    closed_stats_.legs_linked += s.legs_linked;
    closed_stats_.legs_lost += s.legs_lost;
    closed_stats_.legs_failed += s.legs_failed;
    last_used_.erase(it->first);
    it = sets_.erase(it);
  }
}

void ConfluxPool::tick() {
  if (shutting_down_) return;
  // Freed here, once a second, never inside one of the set's own calls.
  reap();
  std::vector<ConfluxTunnel*> all;
  for (const auto& [serial, t] : sets_) all.push_back(t.get());
  for (auto* t : all) t->tick();
  if (expiry_.due(clock_.now())) expire();
  std::size_t clean = 0;
  for (const auto& [serial, t] : sets_)
    if (t->state() != ConfluxTunnel::State::Closed && !t->dirty_since()) ++clean;
  for (; clean < options_.prebuilt; ++clean)
    if (launch_set(predicted_port_, nullptr) == nullptr) break;
  wake_all();
}

void ConfluxPool::shutdown() {
  if (shutting_down_) return;
  shutting_down_ = true;
  for (const auto& [serial, t] : sets_) t->close(cell::DestroyReason::Finished, "shutting down");
  wake_all();
}

void ConfluxPool::wake_all() {
  waiters_.notify_all();
}

std::size_t ConfluxPool::open_count() const {
  return static_cast<std::size_t>(std::count_if(sets_.begin(), sets_.end(), [](const auto& kv) {
    return kv.second->state() == ConfluxTunnel::State::Open;
  }));
}

std::size_t ConfluxPool::linking_count() const {
  return static_cast<std::size_t>(std::count_if(sets_.begin(), sets_.end(), [](const auto& kv) {
    return kv.second->state() == ConfluxTunnel::State::Linking;
  }));
}

std::size_t ConfluxPool::clean_count() const {
  return static_cast<std::size_t>(std::count_if(sets_.begin(), sets_.end(), [](const auto& kv) {
    return kv.second->state() != ConfluxTunnel::State::Closed && !kv.second->dirty_since();
  }));
}

std::vector<const ConfluxTunnel*> ConfluxPool::sets() const {
  std::vector<const ConfluxTunnel*> out;
  for (const auto& [serial, t] : sets_)
    if (t->state() != ConfluxTunnel::State::Closed) out.push_back(t.get());
  return out;
}

ConfluxPoolStats ConfluxPool::stats() const {
  ConfluxPoolStats s = closed_stats_;
  for (const auto& [serial, t] : sets_) {
    const auto& ts = t->stats();
    s.legs_launched += ts.legs_launched;
    s.legs_linked += ts.legs_linked;
    s.legs_lost += ts.legs_lost;
    s.legs_failed += ts.legs_failed;
  }
  s.sets_launched = sets_launched_;
  s.sets_closed = sets_closed_;
  s.sets_shed = sets_shed_;
  s.sets_evicted = sets_evicted_;
  s.sets_expired = sets_expired_;
  s.streams_fell_back = streams_fell_back_;
  return s;
}

}  // namespace conflux::client
