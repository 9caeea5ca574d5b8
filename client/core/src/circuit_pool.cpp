#include "conflux/client/circuit_pool.hpp"

#include <algorithm>

namespace conflux::client {

CircuitPool::CircuitPool(LinkPool& links, const net::Clock& clock, Options options, Hooks hooks, net::LogSink log)
    : links_(links), clock_(clock), options_(options), hooks_(std::move(hooks)), log_(std::move(log)),
      expiry_(options.new_circuit_period) {}

CircuitPool::~CircuitPool() { shutdown(); }

bool CircuitPool::suits(const Circuit& c, const StreamNeeds& needs) const {
  const auto& exit_id = c.exit_hop().target.identity;
  LinkPool::Identity id{};
  std::copy(exit_id.begin(), exit_id.end(), id.begin());
  if (needs.avoid_exits.count(id) != 0) return false;
  // Directory circuits and Conflux legs carry no user streams.
  if (c.info().one_hop_fast || c.info().retired || c.is_leg()) return false;
  if (c.info().guard_client != needs.guard_client) return false;
  if (needs.port && hooks_.exit_allows && !hooks_.exit_allows(c.exit_hop().exit_policy, *needs.port)) return false;
  if (c.dirty_since()) {
    if (c.info().isolation != needs.isolation) return false;
    if (clock_.now() - *c.dirty_since() > options_.max_dirtiness) return false;
  }
  return c.stream_count() < options_.max_streams_per_circuit;
}

Circuit* CircuitPool::find_open(const StreamNeeds& needs) const {
  // Prefer a circuit this isolation group already uses, then a clean one.
  Circuit* clean = nullptr;
  for (const auto& [serial, c] : circuits_) {
    if (c->phase() != Circuit::Phase::Open || !suits(*c, needs)) continue;
    if (c->dirty_since()) return c;
    if (clean == nullptr) clean = c;
  }
  return clean;
}

std::size_t CircuitPool::building_for(const StreamNeeds& needs) const {
  return static_cast<std::size_t>(std::count_if(circuits_.begin(), circuits_.end(), [&](const auto& kv) {
    return kv.second->phase() == Circuit::Phase::Building && suits(*kv.second, needs);
  }));
}

net::awaitable<StreamCarrier*> CircuitPool::acquire(StreamNeeds needs, Clock::time_point deadline, bool* no_exit) {
  // Like tor, predict that the next stream wants the port the last one did.
  if (needs.port) predicted_port_ = needs.port;
  Wakeup wake(co_await net::asio::this_coro::executor);
  waiters_.add(wake, needs);
  Circuit* found = nullptr;
  const std::uint64_t refusals = refusals_;
  while (!shutting_down_ && refusals == refusals_) {
    found = find_open(needs);
    if (found != nullptr) break;
    if (clock_.now() >= deadline) break;
    // One build per group of waiting streams (waiting_streams.hpp): groups
    // that arrive together do not queue behind one build (a built circuit
    // goes to one stream, then serves the rest of its group).
    if (building_for(needs) < waiters_.groups(needs.guard_client)) {
      PathProblem problem;
      PathRequest req;
      req.port = needs.port;
      req.avoid_exits = needs.avoid_exits;
      req.guard_client = needs.guard_client;
      if (launch(req, &problem) == nullptr && problem.no_exit_for_port) {
        // Tor's answer too: no relay allows exit to this port, so fail now.
        if (no_exit != nullptr) *no_exit = true;
        break;
      }
    }
    // Retry a failed path choice (no consensus yet, all guards down...) at
    // least every second; builds finishing wake us sooner.
    co_await wake.wait_until(std::min(deadline, clock_.now() + std::chrono::seconds(1)));
  }
  waiters_.remove(wake);
  co_return found;
}

Circuit* CircuitPool::launch_leg(const PathRequest& req, LegOwner& owner, PathProblem* problem) {
  return launch(req, problem, &owner);
}

bool CircuitPool::may_launch_after_failures() {
  if (failures_in_a_row_ < kFailuresBeforeBackoff) return true;
  const auto now = clock_.now();
  if (last_backoff_launch_ && now - *last_backoff_launch_ < kBackoffInterval) return false;
  last_backoff_launch_ = now;
  return true;
}

Circuit* CircuitPool::launch(const PathRequest& req, PathProblem* problem, LegOwner* owner) {
  if (shutting_down_ || !hooks_.choose_path || building_count() >= options_.max_pending) return nullptr;
  // Conflux legs have their own bounded retries (ClientLinker).
  if (owner == nullptr && !may_launch_after_failures()) return nullptr;
  PathProblem local;
  PathProblem& p = problem != nullptr ? *problem : local;
  auto choice = hooks_.choose_path(req, p);
  const std::string& why = p.why;
  if (!choice) {
    if (why != last_path_error_) net::emit(log_, net::LogLevel::Warn, "Cannot choose a path: " + why);
    last_path_error_ = why;
    return nullptr;
  }
  last_path_error_.clear();
  choice->info.serial = next_serial_++;
  choice->info.guard_client = req.guard_client;
  // A Conflux leg asks what its set runs (the set is built for it); a single
  // circuit what the consensus says.
  if (owner != nullptr) {
    if (const proto::CcParams* cc = owner->leg_congestion_control()) choice->info.congestion_control = *cc;
  } else if (options_.congestion_control && cc_params_.alg != proto::CcAlg::FixedWindow) {
    choice->info.congestion_control = cc_params_;
  }
  Circuit::Hooks hooks;
  hooks.built = [this](Circuit& c) { on_built(c); };
  hooks.closed = [this](Circuit& c, std::string_view why_closed) { on_closed(c, why_closed); };
  hooks.extended = [this](Circuit& c, std::size_t) {
    if (hooks_.event) hooks_.event(c, "EXTENDED", {});
  };
  std::string path_text;
  for (const auto& hop : choice->info.path) path_text += (path_text.empty() ? "" : " -> ") + hop.nickname;
  Circuit* c = links_.launch(std::move(choice->info), std::move(choice->first_hop_at), std::move(hooks));
  // Closed already: the first handshake could not go out (it is reaped).
  if (c == nullptr || c->phase() == Circuit::Phase::Closed) return nullptr;
  // Nothing reached the circuit yet (the handshake's answer comes from the
  // network), so the owner sees every event.
  if (owner != nullptr) c->set_leg_owner(owner);
  ++stats_.launched;
  // Relay nicknames, never destinations: tor logs paths at info too.
  net::emit(log_, net::LogLevel::Info,
            std::string(owner != nullptr ? "Conflux leg circuit " : "Circuit ") + std::to_string(c->info().serial) +
                " launched: " + path_text);
  circuits_[c->info().serial] = c;
  if (hooks_.event) hooks_.event(*c, "LAUNCHED", {});
  return c;
}

std::vector<const Circuit*> CircuitPool::all_circuits() const {
  std::vector<const Circuit*> out;
  for (const auto& [serial, c] : circuits_)
    if (c->phase() != Circuit::Phase::Closed) out.push_back(c);
  return out;
}

void CircuitPool::retire_all() {
  std::vector<Circuit*> open;
  for (const auto& [serial, c] : circuits_)
    if (!c->is_leg() && c->phase() != Circuit::Phase::Closed) open.push_back(c);
  for (Circuit* c : open) {
    c->info().retired = true;
    if (c->phase() == Circuit::Phase::Open && c->stream_count() == 0) c->close(cell::DestroyReason::Finished, "NEWNYM");
  }
}

std::vector<const Circuit*> CircuitPool::open_circuits() const {
  std::vector<const Circuit*> out;
  for (const auto& [serial, c] : circuits_)
    if (c->phase() == Circuit::Phase::Open) out.push_back(c);
  return out;
}

void CircuitPool::on_built(Circuit& c) {
  ++stats_.built;
  if (c.info().congestion_control) ++(c.congestion_control() != nullptr ? stats_.cc_agreed : stats_.cc_fixed_windows);
  failures_in_a_row_ = 0;
  last_backoff_launch_.reset();
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now() - c.launched_at());
  stats_.recent_build_seconds.push_back(static_cast<double>(took.count()) / 1000.0);
  if (stats_.recent_build_seconds.size() > 1000) stats_.recent_build_seconds.erase(stats_.recent_build_seconds.begin());
  if (hooks_.built) hooks_.built(c, took);
  if (hooks_.event) hooks_.event(c, "BUILT", {});
  net::emit(log_, net::LogLevel::Info,
            "Circuit " + std::to_string(c.info().serial) + " built in " + std::to_string(took.count()) + " ms");
  wake_all();
}

void CircuitPool::on_closed(Circuit& c, std::string_view why) {
  if (c.built_at()) {
    ++stats_.closed;
  } else if (!shutting_down_) {
    ++stats_.failed;
    ++failures_in_a_row_;
    if (hooks_.build_failed) hooks_.build_failed(c, false, why);
    net::emit(log_, net::LogLevel::Info,
              "Circuit " + std::to_string(c.info().serial) + " failed while building: " + std::string(why));
  }
  if (hooks_.event) hooks_.event(c, c.built_at() ? "CLOSED" : "FAILED", why);
  circuits_.erase(c.info().serial);
  wake_all();
}

Circuit* CircuitPool::find(const StreamCarrier& c) const {
  // By serial, not by downcast: only circuits this pool still tracks.
  auto it = circuits_.find(c.serial());
  return it != circuits_.end() && static_cast<const StreamCarrier*>(it->second) == &c ? it->second : nullptr;
}

void CircuitPool::claim(StreamCarrier& carrier, const std::string& isolation) {
  Circuit* c = find(carrier);
  if (c != nullptr && c->streams_attached() <= 1) c->info().isolation = isolation;
}

void CircuitPool::stream_done(StreamCarrier& carrier) {
  Circuit* c = find(carrier);
  if (c == nullptr || c->phase() != Circuit::Phase::Open || c->stream_count() != 0 || !c->dirty_since()) return;
  if (c->info().retired || clock_.now() - *c->dirty_since() > options_.max_dirtiness) {
    ++stats_.expired;
    c->close(cell::DestroyReason::Finished, "dirty and unused");
  }
}

void CircuitPool::retire(StreamCarrier& carrier) {
  Circuit* c = find(carrier);
  if (c == nullptr) return;
  c->info().retired = true;
  if (c->phase() == Circuit::Phase::Open && c->stream_count() == 0)
    c->close(cell::DestroyReason::Finished, "retired");
}

void CircuitPool::tick() {
  if (shutting_down_) return;
  const auto now = clock_.now();
  const auto timeout = hooks_.build_timeout ? hooks_.build_timeout() : std::chrono::milliseconds(60000);
  std::vector<Circuit*> expired;
  for (const auto& [serial, c] : circuits_)
    if (c->phase() == Circuit::Phase::Building && now - c->launched_at() > timeout) expired.push_back(c);
  for (auto* c : expired) {
    ++stats_.timed_out;
    ++failures_in_a_row_;
    if (hooks_.build_failed) hooks_.build_failed(*c, true, "build timed out");
    net::emit(log_, net::LogLevel::Info,
              "Circuit " + std::to_string(c->info().serial) + " timed out after " + std::to_string(timeout.count()) +
                  " ms while building; abandoning it");
    c->close(cell::DestroyReason::Finished, "build timed out");
  }
  if (expiry_.due(now)) expire();
  // Preemptive circuits: keep `preemptive` clean ones open or on the way.
  std::size_t clean_or_building = 0;
  for (const auto& [serial, c] : circuits_)
    if (!c->info().one_hop_fast && !c->is_leg() && c->phase() != Circuit::Phase::Closed && !c->dirty_since())
      ++clean_or_building;
  for (; clean_or_building < options_.preemptive; ++clean_or_building) {
    PathRequest req;
    req.port = predicted_port_;
    if (launch(req) == nullptr) break;
  }
}

void CircuitPool::expire() {
  std::vector<CarrierUse> uses;
  for (const auto& [serial, c] : circuits_) {
    if (c->phase() != Circuit::Phase::Open || c->is_leg()) continue;
    CarrierUse u;
    u.serial = serial;
    u.streams = c->stream_count();
    u.dirty_since = c->dirty_since();
    u.retired = c->info().retired;
    uses.push_back(u);
  }
  for (const std::uint64_t serial : expired_carriers(uses, clock_.now(), options_.max_dirtiness)) {
    auto it = circuits_.find(serial);
    if (it == circuits_.end()) continue;
    ++stats_.expired;
    it->second->close(cell::DestroyReason::Finished, "dirty and unused");
  }
}

void CircuitPool::close_through(const LinkPool::Identity& identity, std::string_view why) {
  std::vector<Circuit*> hit;
  for (const auto& [serial, c] : circuits_)
    for (const auto& hop : c->info().path)
      if (std::equal(identity.begin(), identity.end(), hop.target.identity.begin())) {
        hit.push_back(c);
        break;
      }
  for (auto* c : hit) c->close(cell::DestroyReason::Finished, why);
}

void CircuitPool::shutdown() {
  if (shutting_down_) return;
  shutting_down_ = true;
  std::vector<Circuit*> all;
  for (const auto& [serial, c] : circuits_) all.push_back(c);
  for (auto* c : all) c->close(cell::DestroyReason::Finished, "shutting down");
  circuits_.clear();
  wake_all();
}

void CircuitPool::wake_all() {
  waiters_.notify_all();
}

std::size_t CircuitPool::open_count() const {
  return static_cast<std::size_t>(std::count_if(circuits_.begin(), circuits_.end(), [](const auto& kv) {
    return kv.second->phase() == Circuit::Phase::Open;
  }));
}

std::size_t CircuitPool::building_count() const {
  return static_cast<std::size_t>(std::count_if(circuits_.begin(), circuits_.end(), [](const auto& kv) {
    return kv.second->phase() == Circuit::Phase::Building;
  }));
}

std::size_t CircuitPool::clean_count() const {
  return static_cast<std::size_t>(std::count_if(circuits_.begin(), circuits_.end(), [](const auto& kv) {
    return kv.second->phase() == Circuit::Phase::Open && !kv.second->is_leg() && !kv.second->dirty_since();
  }));
}

}  // namespace conflux::client
