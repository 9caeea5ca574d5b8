#pragma once
// A directory authority's clock-driven side. At each interval boundary VA
// (valid_after_for(now, interval)) it:
//   1. tests every relay it holds a descriptor for, ours or tor's (the
//      pluggable probe, a bounded number at once) and records the outcomes;
//   2. computes the body for VA (AuthorityState::compute) and writes tor's
//      microdesc and ns consensus from it, signed with this authority's
//      RSA signing key (TorAuthorityState), which publishes at once when
//      this authority alone is a majority;
//   3. POSTs its signatures to every other configured authority, retrying
//      on transport errors until the interval ends;
//   4. if by mid-interval no consensus for VA is served here (our view
//      differed from the majority's), fetches the other authorities' tor
//      consensus (fetch_tor_consensus) and adopts it when a majority of the
//      voters signed it, so every authority serves the network's.
// Signatures from the others arrive through the DirServer (DirRoutes ->
// TorAuthorityState); publication happens there once a majority signed. A
// relay whose first upload arrives is tested at once, so a new relay can be
// Running in the very next consensus.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "conflux/crypto/ed25519.hpp"
#include "conflux/dirnet/authority_state.hpp"
#include "conflux/dirnet/http_client.hpp"
#include "conflux/dirnet/reachability_probe.hpp"
#include "conflux/dirnet/tor_authority_state.hpp"
#include "conflux/log/sink.hpp"
#include "conflux/net/asio.hpp"
#include "conflux/net/clock.hpp"

namespace conflux::dirnet {

struct AuthorityPeer {
  tcp::endpoint dir;                 // its DirPort
  crypto::RsaFingerprint v3ident{};  // tor's name for it
};

struct AuthorityServiceOptions {
  // Every configured authority (DirAuthority lines); this one is skipped by v3ident.
  std::vector<AuthorityPeer> authorities;
  // How often the loop looks at the clock (the interval boundary is in
  // whole seconds; this is the largest lateness after it).
  std::chrono::milliseconds tick{250};
  std::size_t parallel_probes = 16;
  std::chrono::milliseconds signature_retry{250};  // first retry; doubles
  HttpLimits http{std::chrono::milliseconds(5000), 8192, 4096};
  // The tor-format side, required: it writes and signs tor's documents from
  // each body. Must outlive the service.
  TorAuthorityState* tor = nullptr;
  // V3BandwidthsFile: read before each body is computed (empty: none).
  std::string bandwidth_file;
  log::Sink log;  // the bandwidth file's warnings
};

class AuthorityService : public std::enable_shared_from_this<AuthorityService> {
 public:
  // `clock` and `state` must outlive the service's coroutines. An empty
  // `probe` means make_tls_probe(5 s).
  static std::shared_ptr<AuthorityService> create(net::asio::any_io_executor ex, const net::Clock& clock,
                                                  AuthorityState& state, AuthorityServiceOptions options,
                                                  ReachabilityProbe probe = {});
  AuthorityService(net::asio::any_io_executor ex, const net::Clock& clock, AuthorityState& state,
                   AuthorityServiceOptions options, ReachabilityProbe probe);

  void start();
  void stop();

  // Test this relay soon (wire DirRoutes::on_new_relay here). At most
  // parallel_probes such tests run at once; past that the relay waits for
  // the next interval's round.
  void probe_soon(const crypto::Ed25519Public& identity);

  // Called after each build with its valid-after.
  std::function<void(std::uint64_t va)> on_built;
  // Each time the tor consensus served changes: its valid-after.
  std::function<void(std::uint64_t va)> on_tor_published;

  [[nodiscard]] std::uint64_t probes_run() const noexcept { return probes_; }
  [[nodiscard]] std::uint64_t signatures_delivered() const noexcept { return delivered_; }

 private:
  net::awaitable<void> loop();
  net::awaitable<void> probe_all();
  net::awaitable<void> probe_one(ProbeTarget t);
  net::awaitable<void> send_signature(AuthorityPeer peer, std::string path, std::string text, std::uint64_t va);
  net::awaitable<void> catch_up_tor(std::uint64_t va);
  net::awaitable<void> catch_up_tor_ns(std::uint64_t va);
  void build_and_send(std::uint64_t va);
  [[nodiscard]] bool is_self(const AuthorityPeer& peer) const;
  void check_published();

  net::asio::any_io_executor ex_;
  const net::Clock& clock_;
  AuthorityState& state_;
  AuthorityServiceOptions options_;
  ReachabilityProbe probe_;
  net::asio::steady_timer tick_timer_;
  std::optional<std::uint64_t> built_va_;
  std::uint64_t tor_published_va_ = 0;
  std::size_t soon_in_flight_ = 0;
  std::uint64_t probes_ = 0, delivered_ = 0;
  bool stopped_ = false;
};

}  // namespace conflux::dirnet
