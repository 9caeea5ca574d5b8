#pragma once
// Which circuit a stream uses, and when circuits are built and retired
// (tor's circuituse.c, path-spec 2.1): circuits are built ahead of need
// (preemptive), a stream takes an open circuit whose exit allows its port
// and whose isolation matches (building one if none does), a circuit stops
// taking streams MaxCircuitDirtiness after its first one and, once it has no
// stream, is closed by the expiry pass (once per NewCircuitPeriod,
// idle_carriers.hpp), and a build that takes longer than the timeout is
// abandoned and tried again elsewhere. There is no limit on open circuits,
// as in tor; at MaxClientCircuitsPending streams wait (woken by every build
// that ends) until their SocksTimeout.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "conflux/client/idle_carriers.hpp"
#include "conflux/client/link_pool.hpp"
#include "conflux/client/stream_pool.hpp"
#include "conflux/client/waiting_streams.hpp"
#include "conflux/client/wakeup.hpp"

namespace conflux::client {

struct PathRequest {
  std::optional<std::uint16_t> port;      // the exit must allow it; nullopt: prefer 80/443
  std::set<LinkPool::Identity> avoid_exits;
  // Conflux legs: the set's exit, the other legs' relays, and a first hop
  // to retry through (PathOptions exit / exclude / first_hop).
  std::optional<LinkPool::Identity> exit;
  std::set<LinkPool::Identity> exclude;
  std::optional<LinkPool::Identity> first_hop;
  bool conflux_leg = false;  // the exit must take Conflux legs (PathOptions::conflux)
  std::string guard_client;  // PerClientGuards: whose guards; empty: the process's
};

// Why no path could be chosen.
struct PathProblem {
  std::string why;
  bool no_exit_for_port = false;  // no exit in the consensus allows the port: waiting will not help
  // Every usable guard or bridge was excluded (a Conflux leg avoiding the
  // other legs' first hops): the caller may relax that.
  bool no_compatible_first_hop = false;
  bool first_hop_unusable = false;  // the fixed first hop is down or gone
};

struct PathChoice {
  CircuitInfo info;
  std::vector<net::tcp::endpoint> first_hop_at;
};

struct CircuitPoolStats {
  std::uint64_t launched = 0, built = 0, failed = 0, timed_out = 0, closed = 0;
  std::uint64_t expired = 0;  // dirty and idle past MaxCircuitDirtiness (or retired): closed
  // Built circuits that asked their exit for congestion control: it agreed,
  // or it did not and the circuit runs fixed windows.
  std::uint64_t cc_agreed = 0, cc_fixed_windows = 0;
  std::vector<double> recent_build_seconds;  // drained by whoever exports them
};

class CircuitPool final : public StreamPool {
 public:
  struct Options {
    std::size_t preemptive = 2;          // clean circuits kept ready
    std::size_t max_pending = 32;        // MaxClientCircuitsPending
    std::chrono::seconds max_dirtiness{600};  // MaxCircuitDirtiness
    std::chrono::seconds new_circuit_period{30};  // NewCircuitPeriod: how often idle dirty circuits expire
    std::size_t max_streams_per_circuit = 500;
    // Ask exits for congestion control (prop 324) when the consensus's cc_alg
    // is not 0 (tor's default is 2, Vegas).
    bool congestion_control = true;
  };
  struct Hooks {
    // The path to build (path selection lives outside); an error says why
    // no path exists now.
    std::function<std::optional<PathChoice>(const PathRequest&, PathProblem& problem)> choose_path;
    std::function<bool(const std::string& exit_policy_summary, std::uint16_t port)> exit_allows;
    // The current build timeout (the adaptive estimate).
    std::function<std::chrono::milliseconds()> build_timeout;
    // Outcomes, for the timeout estimator, guard state and the log.
    std::function<void(const Circuit&, std::chrono::milliseconds took)> built;
    std::function<void(const Circuit&, bool timed_out, std::string_view why)> build_failed;
    // Every change a controller sees (CIRC events): LAUNCHED, EXTENDED,
    // BUILT, FAILED (before built), CLOSED; `why` for the last two.
    std::function<void(const Circuit&, std::string_view status, std::string_view why)> event;
  };

  CircuitPool(LinkPool& links, const net::Clock& clock, Options options, Hooks hooks, net::LogSink log);
  ~CircuitPool() override;
  CircuitPool(const CircuitPool&) = delete;
  CircuitPool& operator=(const CircuitPool&) = delete;

  // StreamPool: circuits for streams. Conflux legs are never handed out.
  net::awaitable<StreamCarrier*> acquire(StreamNeeds needs, Clock::time_point deadline,
                                         bool* no_exit = nullptr) override;
  void claim(StreamCarrier& c, const std::string& isolation) override;
  void stream_done(StreamCarrier& c) override;
  void retire(StreamCarrier& c) override;

  // A Conflux leg: a circuit on a path for `req`, owned (in the protocol
  // sense) by `owner` from the start. Counted, timed out and closed on
  // shutdown like any circuit, but it takes no streams, is not a preemptive
  // circuit and dirtiness does not close it. Null when no path or no launch
  // is possible now (`problem` says why).
  Circuit* launch_leg(const PathRequest& req, LegOwner& owner, PathProblem* problem = nullptr);

  // Housekeeping, once a second: build timeouts, dirtiness, preemptive builds.
  void tick();
  // Closes every circuit whose path goes through `identity` (a relay that
  // misbehaved or is gone from the consensus).
  void close_through(const LinkPool::Identity& identity, std::string_view why);
  void shutdown();
  // The congestion-control parameters new circuits ask for and run (the
  // consensus's cc_*, tor's defaults until one arrives).
  void set_cc_params(const proto::CcParams& params) { cc_params_ = params; }
  [[nodiscard]] const proto::CcParams& cc_params() const noexcept { return cc_params_; }
  // Clean circuits kept ready from now on (SETCONF ConfluxEnabled).
  void set_preemptive(std::size_t n) { options_.preemptive = n; }

  [[nodiscard]] std::size_t open_count() const;
  // Open circuits, by serial (metrics).
  [[nodiscard]] std::vector<const Circuit*> open_circuits() const;
  // Every circuit building or open, legs included, by serial (circuit-status).
  [[nodiscard]] std::vector<const Circuit*> all_circuits() const;
  // NEWNYM: no circuit open now takes a new stream; those without streams
  // close (Conflux legs are their sets' to retire).
  void retire_all();
  // DisableNetwork 1: every stream waiting now for a circuit gets null at
  // once (the SOCKS session gives it tor's answer), not at its deadline.
  void refuse_waiting() {
    ++refusals_;
    waiters_.notify_all();
  }
  [[nodiscard]] std::size_t building_count() const;
  [[nodiscard]] std::size_t clean_count() const;
  [[nodiscard]] std::size_t waiting_count() const noexcept { return waiters_.size(); }  // streams waiting for a circuit
  [[nodiscard]] std::size_t max_pending() const noexcept { return options_.max_pending; }
  [[nodiscard]] const CircuitPoolStats& stats() const noexcept { return stats_; }
  // Why the last path choice failed (empty when it did not).
  [[nodiscard]] const std::string& last_path_error() const noexcept { return last_path_error_; }

 private:
  struct Waiter {
    Wakeup* wake;
  };
  [[nodiscard]] Circuit* find_open(const StreamNeeds& needs) const;
  [[nodiscard]] std::size_t building_for(const StreamNeeds& needs) const;
  void expire();
  [[nodiscard]] bool suits(const Circuit& c, const StreamNeeds& needs) const;
  Circuit* launch(const PathRequest& req, PathProblem* problem = nullptr, LegOwner* owner = nullptr);
  [[nodiscard]] Circuit* find(const StreamCarrier& c) const;
  void wake_all();
  void on_built(Circuit& c);
  void on_closed(Circuit& c, std::string_view why);
  // False while builds keep failing and one was launched within the interval.
  bool may_launch_after_failures();

  LinkPool& links_;
  const net::Clock& clock_;
  Options options_;
  Hooks hooks_;
  net::LogSink log_;
  std::map<std::uint64_t, Circuit*> circuits_;  // by serial; owned by the LinkPool
  WaitingStreams waiters_;
  std::uint64_t next_serial_ = 1;
  ExpiryPeriod expiry_;
  CircuitPoolStats stats_;
  std::string last_path_error_;
  proto::CcParams cc_params_{};
  std::optional<std::uint16_t> predicted_port_;  // nullopt: any exit, 80/443 preferred
  // Builds that failed since the last one that succeeded. Past
  // kFailuresBeforeBackoff, circuits for streams and preemptive circuits are
  // launched at most once per kBackoffInterval (tor: MAX_CIRCUIT_FAILURES),
  // so a network that refuses every path is not asked a hundred times a second.
  static constexpr std::uint32_t kFailuresBeforeBackoff = 5;
  static constexpr std::chrono::seconds kBackoffInterval{1};
  std::uint32_t failures_in_a_row_ = 0;
  std::optional<net::Clock::Monotonic::time_point> last_backoff_launch_;
  bool shutting_down_ = false;
  std::uint64_t refusals_ = 0;  // refuse_waiting() calls: a waiter that sees it change stops
};

}  // namespace conflux::client
