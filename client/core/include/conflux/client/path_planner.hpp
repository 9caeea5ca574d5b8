#pragma once
// The runtime's side of path selection: holds the consensus, the guard set
// and the bridges' descriptors, and answers the circuit pool's questions
// (which path next, does this exit allow that port, how long may a build
// take) with conflux_path's sans-I/O rules. It also learns: build times feed
// the timeout estimate, link failures mark guards down.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/client/bridge_directory.hpp"
#include "conflux/client/circuit_pool.hpp"
#include "conflux/config/proxy_options.hpp"
#include "conflux/dir/consensus.hpp"

namespace conflux::client {

// A sampled guard as a controller sees it (GETINFO entry-guards, GUARD).
struct GuardReport {
  std::string name;     // "$FINGERPRINT~nickname" (the nickname alone without an RSA identity)
  std::string status;   // tor's words: "never-connected", "unusable", "down", "up"
  bool reachable = false;
};

class PathPlanner {
 public:
  PathPlanner(const config::ProxyOptions& options, const net::Clock& clock, net::LogSink log);
  ~PathPlanner();
  PathPlanner(const PathPlanner&) = delete;
  PathPlanner& operator=(const PathPlanner&) = delete;

  void set_consensus(const dir::Consensus& c);
  void set_bridges(const std::vector<BridgeStatus>& bridges);
  // SETCONF UseBridges: first hops from the bridges (set_bridges) or guards.
  void set_use_bridges(bool use);
  // Enough to build circuits: a consensus, and with bridges one usable bridge.
  [[nodiscard]] bool ready() const;
  // Why not ready, or which bridges failed (for the log).
  [[nodiscard]] std::string not_ready_reason() const;

  std::optional<PathChoice> choose(const PathRequest& req, PathProblem& problem);
  [[nodiscard]] bool exit_allows(const std::string& summary, std::uint16_t port) const;
  [[nodiscard]] std::chrono::milliseconds build_timeout() const;
  void circuit_built(const Circuit& c, std::chrono::milliseconds took);
  void circuit_failed(const Circuit& c, bool timed_out);
  void first_hop_reachable(const LinkPool::Identity& id, bool reachable);
  // The sampled guards in sample order (none before the first consensus).
  [[nodiscard]] std::vector<GuardReport> guards() const;

  // PerClientGuards (client/path/client_guards.hpp). Whether a stream of
  // `client` may have circuits: always without the option, with bridges or
  // for no client; else when the client has guards or there is room for it.
  [[nodiscard]] bool admit_guard_client(std::string_view client);
  // One client's guards as guards() lists the process's; nullopt for a
  // client without guards of its own (or without the option).
  [[nodiscard]] std::optional<std::vector<GuardReport>> client_guards(std::string_view client) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace conflux::client
