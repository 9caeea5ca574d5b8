#pragma once
// A directory authority's clock-driven side. At each interval boundary VA
// (valid_after_for(now, interval)) it:
//   1. tests every relay it holds a descriptor for, ours or tor's (the
//      pluggable probe, a bounded number at once) and records the outcomes;
//   2. builds and signs the body for VA (AuthorityState::build), which
//      publishes at once when this authority alone is a majority;
//   3. POSTs its detached signature to every other configured authority,
//      retrying on transport errors until the interval ends;
//   4. if by mid-interval no consensus for VA was published here (our view
//      differed from the majority's), fetches the other authorities' and
//      adopts it when it verifies, so every authority serves the network's.
// Signatures from the others arrive through the DirServer (DirRoutes ->
// AuthorityState::add_signature); publication happens there once a
// majority signed. A relay whose first upload arrives is tested at once,
// so a new relay can be Running in the very next consensus.
//
// With json_consensus false (tor-form DirAuthority lines), step 2 computes
// the body unsigned and only tor's document is signed and exchanged
// (TorAuthorityState); step 4 fetches the others' tor consensus
// (fetch_tor_consensus) and adopts it when it verifies. The JSON steps are
// kept only for our form of DirAuthority and retire with it (issue 15).
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "conflux/crypto/ed25519.hpp"
#include "conflux/dir/consensus.hpp"
#include "conflux/dirnet/authority_state.hpp"
#include "conflux/dirnet/http_client.hpp"
#include "conflux/dirnet/reachability_probe.hpp"
#include "conflux/dirnet/tor_authority_state.hpp"
#include "conflux/net/asio.hpp"
#include "conflux/net/clock.hpp"

namespace conflux::dirnet {

struct AuthorityPeer {
  crypto::Ed25519Public identity{};  // our form's name for it (JSON form only)
  tcp::endpoint dir;                 // its DirPort
  crypto::RsaFingerprint v3ident{};  // tor's name for it
};

struct AuthorityServiceOptions {
  // Every configured authority (DirAuthority lines); this one is skipped by identity.
  std::vector<AuthorityPeer> authorities;
  // How often the loop looks at the clock (the interval boundary is in
  // whole seconds; this is the largest lateness after it).
  std::chrono::milliseconds tick{250};
  std::size_t parallel_probes = 16;
  std::chrono::milliseconds signature_retry{250};  // first retry; doubles
  HttpLimits http{std::chrono::milliseconds(5000), 8192, 4096};
  dir::ConsensusCheck fetch_check;
  // The tor-format side (null: none): built after each body and its
  // signature sent to the others like the JSON one. Must outlive the service.
  TorAuthorityState* tor = nullptr;
  // Whether our JSON consensus is signed, exchanged and served too. False:
  // tor's document alone (needs `tor`); peers are then told apart by v3ident.
  bool json_consensus = true;
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

  // Called after each build with its valid-after, and each time the
  // consensus this authority serves changes.
  std::function<void(std::uint64_t va)> on_built;
  std::function<void(const dir::Consensus&)> on_published;
  // Each time the tor consensus served changes: its valid-after.
  std::function<void(std::uint64_t va)> on_tor_published;

  [[nodiscard]] std::uint64_t probes_run() const noexcept { return probes_; }
  [[nodiscard]] std::uint64_t signatures_delivered() const noexcept { return delivered_; }

 private:
  net::awaitable<void> loop();
  net::awaitable<void> probe_all();
  net::awaitable<void> probe_one(ProbeTarget t);
  net::awaitable<void> send_signature(AuthorityPeer peer, std::string path, std::string text, std::uint64_t va);
  net::awaitable<void> catch_up(std::uint64_t va);
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
  std::optional<std::uint64_t> published_va_;
  std::size_t published_signatures_ = 0;
  std::uint64_t tor_published_va_ = 0;
  std::size_t soon_in_flight_ = 0;
  std::uint64_t probes_ = 0, delivered_ = 0;
  bool stopped_ = false;
};

}  // namespace conflux::dirnet
