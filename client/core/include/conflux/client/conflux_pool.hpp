#pragma once
// Which Conflux set a stream uses, and when sets are built and retired: the
// CircuitPool's rules applied to sets (ConfluxEnabled 1). One clean set is
// kept prebuilt so a new stream does not wait for linking; a stream takes an
// open set (at least one leg linked) whose exit allows its port and whose
// isolation matches, building one if none does; a set stops taking streams
// MaxCircuitDirtiness after its first, and a dirty set without streams is
// closed by the expiry pass (once per NewCircuitPeriod, idle_carriers.hpp).
//
// The pool serves any number of isolation groups with at most `max_sets`
// sets: at the limit, the least recently used set without streams is closed
// to make room. When no set can be had (every slot holds a set with streams
// or one linking for another stream, or no set links within `set_wait`,
// or the stream's set failed to link) the stream falls back to a single
// circuit from `Hooks::fallback`, as tor's streams take a normal circuit
// when no linked set suits them (conflux_get_circ_for_conn), and the log
// says why at info.
//
// Legs are launched through a hook (CircuitPool::launch_leg in the proxy):
// leg 1 on a normal exit path for the port, the others to the same exit
// through other first hops and middles. When no other guard or bridge fits
// (one bridge configured), a leg shares the first hop, as tor does; a leg
// retried through a first hop that is down takes another. The sets share
// one out-of-order memory budget; under pressure the sets holding the
// oldest out-of-order data are closed first.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "conflux/client/circuit_pool.hpp"
#include "conflux/client/conflux_tunnel.hpp"
#include "conflux/client/idle_carriers.hpp"
#include "conflux/client/stream_pool.hpp"
#include "conflux/client/waiting_streams.hpp"
#include "conflux/client/wakeup.hpp"
#include "conflux/proto/conflux_reorder_budget.hpp"

namespace conflux::client {

struct ConfluxPoolStats {
  std::uint64_t sets_launched = 0;
  std::uint64_t sets_closed = 0;
  std::uint64_t sets_shed = 0;      // closed under out-of-order memory pressure
  std::uint64_t sets_evicted = 0;   // idle, closed to make room at max_sets
  std::uint64_t sets_expired = 0;   // dirty and idle past MaxCircuitDirtiness (or retired)
  std::uint64_t streams_fell_back = 0;  // given to the single-circuit pool
  std::uint64_t legs_launched = 0;
  std::uint64_t legs_linked = 0;
  std::uint64_t legs_lost = 0;      // linked legs that died (and were relinked if possible)
  std::uint64_t legs_failed = 0;    // legs that died before linking
};

class ConfluxPool final : public StreamPool {
 public:
  struct Options {
    std::size_t prebuilt = 1;                  // clean sets kept ready (or linking)
    std::size_t max_sets = 32;                 // sets alive at once
    std::chrono::seconds max_dirtiness{600};   // MaxCircuitDirtiness
    std::chrono::seconds new_circuit_period{30};  // NewCircuitPeriod: how often idle dirty sets expire
    // The longest a stream waits for a set before it falls back to a single
    // circuit: a set links in two circuit builds and a round trip.
    std::chrono::seconds set_wait{10};
    std::size_t max_streams_per_set = 500;
    ConfluxTunnelConfig tunnel{};
    proto::ReorderBudgetConfig budget{};
  };
  struct Hooks {
    // A leg circuit for `req` owned by `owner`; null (with `problem`) when
    // none can be launched now. The proxy binds CircuitPool::launch_leg.
    std::function<LegCircuit*(const PathRequest& req, LegOwner& owner, PathProblem* problem)> launch_leg;
    std::function<bool(const std::string& exit_policy_summary, std::uint16_t port)> exit_allows;
    // Where a stream goes when it cannot have a set (the CircuitPool in the
    // proxy); null: the stream fails instead. claim, stream_done and retire
    // of its carriers are passed on to it.
    StreamPool* fallback = nullptr;
  };

  ConfluxPool(const net::Clock& clock, Options options, Hooks hooks, net::LogSink log);
  ~ConfluxPool() override;
  ConfluxPool(const ConfluxPool&) = delete;
  ConfluxPool& operator=(const ConfluxPool&) = delete;

  // StreamPool
  net::awaitable<StreamCarrier*> acquire(StreamNeeds needs, Clock::time_point deadline,
                                         bool* no_exit = nullptr) override;
  void claim(StreamCarrier& c, const std::string& isolation) override;
  void stream_done(StreamCarrier& c) override;
  void retire(StreamCarrier& c) override;

  // Housekeeping, once a second: the sets' LINKED deadlines and relaunches,
  // dirtiness, the prebuilt set, freeing closed sets.
  void tick();
  void shutdown();
  // NEWNYM: every set stops taking new streams; those without streams close.
  void retire_all();
  // DisableNetwork 1: every stream waiting now for a set gets null at
  // once (the SOCKS session gives it tor's answer), not at its deadline.
  void refuse_waiting() {
    ++refusals_;
    waiters_.notify_all();
  }
  // The congestion control the legs of sets launched from now on ask for
  // (the consensus's cc_*); cc_alg 0: fixed windows.
  void set_cc_params(const proto::CcParams& params) {
    options_.tunnel.congestion_control.reset();
    if (params.alg != proto::CcAlg::FixedWindow) options_.tunnel.congestion_control = params;
  }
  // A circuit build ended (MaxClientCircuitsPending has room): waiting
  // streams try to launch their set again at once.
  void pending_slot_freed() { wake_all(); }
  // Clean sets kept ready from now on (0 once SETCONF ConfluxEnabled 0).
  void set_prebuilt(std::size_t n) { options_.prebuilt = n; }
  // SETCONF ConfluxNumLegs/ConfluxClientUX: sets linked from now on (the
  // consensus's congestion control stays).
  void set_tunnel(ConfluxTunnelConfig tunnel) {
    tunnel.congestion_control = options_.tunnel.congestion_control;
    options_.tunnel = std::move(tunnel);
  }

  [[nodiscard]] std::size_t open_count() const;     // at least one leg linked
  [[nodiscard]] std::size_t linking_count() const;  // no leg linked yet
  [[nodiscard]] std::size_t clean_count() const;    // open or linking, no stream yet
  [[nodiscard]] std::size_t waiting_count() const noexcept { return waiters_.size(); }  // streams waiting for a set
  [[nodiscard]] std::size_t max_sets() const noexcept { return options_.max_sets; }
  [[nodiscard]] std::chrono::seconds set_wait() const noexcept { return options_.set_wait; }
  // Live sets, for the metrics (serial order).
  [[nodiscard]] std::vector<const ConfluxTunnel*> sets() const;
  // Counters of every set so far, closed ones included.
  [[nodiscard]] ConfluxPoolStats stats() const;
  [[nodiscard]] const proto::ReorderBudget& budget() const noexcept { return budget_; }

 private:
  [[nodiscard]] ConfluxTunnel* find(const StreamCarrier& c) const;
  [[nodiscard]] bool exit_allows(const ConfluxTunnel& t, std::uint16_t port) const;
  [[nodiscard]] bool suits(const ConfluxTunnel& t, const StreamNeeds& needs, bool linking_ok) const;
  [[nodiscard]] ConfluxTunnel* find_open(const StreamNeeds& needs) const;
  [[nodiscard]] std::size_t alive() const;
  [[nodiscard]] std::size_t linking_for(const StreamNeeds& needs) const;
  // A set for `needs` by `until`; null with `why` (or `no_exit`) otherwise.
  net::awaitable<ConfluxTunnel*> wait_for_set(const StreamNeeds& needs, Clock::time_point until, bool& no_exit,
                                              std::string& why);
  [[nodiscard]] std::vector<CarrierUse> uses() const;
  // Closes the least recently used idle set; false when none is idle.
  bool make_room();
  [[nodiscard]] std::string slots_taken() const;
  void expire();
  void touch(std::uint64_t serial) { last_used_[serial] = clock_.now(); }
  ConfluxTunnel* launch_set(std::optional<std::uint16_t> port, PathProblem* problem,
                            const std::set<RelayIdentity>* avoid_exits = nullptr, const std::string& guard_client = {});
  LegCircuit* launch_leg(ConfluxTunnel& t, const LegRequest& r);
  void shed();
  void on_closed(ConfluxTunnel& t);
  void reap();
  void wake_all();

  const net::Clock& clock_;
  Options options_;
  Hooks hooks_;
  net::LogSink log_;
  proto::ReorderBudget budget_;
  std::map<std::uint64_t, std::unique_ptr<ConfluxTunnel>> sets_;  // by serial
  std::map<std::uint64_t, Clock::time_point> last_used_;          // by serial, live sets
  ExpiryPeriod expiry_;
  WaitingStreams waiters_;
  std::uint64_t next_serial_ = 1;
  ConfluxPoolStats closed_stats_;  // legs of sets already freed
  std::uint64_t sets_launched_ = 0, sets_closed_ = 0, sets_shed_ = 0;
  std::uint64_t sets_evicted_ = 0, sets_expired_ = 0, streams_fell_back_ = 0;
  PathProblem last_problem_;
  const std::set<RelayIdentity>* first_leg_avoids_ = nullptr;  // while a set launches its first leg
  std::optional<std::uint16_t> predicted_port_;
  bool shutting_down_ = false;
  std::uint64_t refusals_ = 0;  // refuse_waiting() calls: a waiter that sees it change stops
};

}  // namespace conflux::client
