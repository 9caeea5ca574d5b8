#pragma once
// The proxy's channels and the circuits on them. One ClientLink per first
// hop (guard or bridge), opened on demand and shared by every circuit
// through that relay; the pool owns both, routes each incoming cell to its
// circuit, and when a link dies closes its circuits first. Circuits are
// destroyed (and their IDs released) only after their closed hook ran,
// outside any of their own calls.
//
// A first hop is named by its Ed25519 identity, its RSA fingerprint, or both
// (the circuit's first hop gives the RSA one as a legacy-id link specifier;
// an all-zero Ed25519 identity means "not known": a relay named only by RSA
// fingerprint, as tor's Bridge and FallbackDir lines name them). The link's
// CERTS cell proves the identities it was asked for and gives the other; a
// link is then found by either.
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/client/circuit.hpp"
#include "conflux/net/client_link.hpp"
#include "conflux/net/log_sink.hpp"
#include "conflux/net/scheduler.hpp"

namespace conflux::client {

// How a link to one first hop is made when it is not a plain TCP connection
// to its address (a bridge behind a pluggable transport): where to connect
// and what to run before TLS. `unavailable` (non-empty): no link can be made
// now (the transport is down); launch() then returns null.
struct LinkRoute {
  std::vector<net::tcp::endpoint> connect_to;
  net::ClientLink::Prelude prelude;
  std::string unavailable;
};

// ORCONN's REASON for a link that failed (was_open false) or closed.
[[nodiscard]] std::string_view orconn_reason(const net::ClientLink& link, bool was_open, bool transport_down,
                                             std::string_view why);

class LinkPool {
 public:
  using Identity = std::array<std::uint8_t, 32>;
  // Who a link is to: what it was asked for, and once open what it proved.
  struct Peer {
    std::optional<Identity> ed25519;
    std::optional<crypto::RsaFingerprint> rsa;
    // Names the same relay as `other`: no known identity differs, and one is
    // known to both.
    [[nodiscard]] bool same_as(const Peer& other) const;
  };
  // The first hop a circuit's path names (see above).
  [[nodiscard]] static Peer first_hop_of(const CircuitInfo& info);

  // A link as the ControlPort tells it (ORCONN, orconn-status; control-spec 4.1.3).
  struct LinkReport {
    enum class Status { Launched, Connected, Failed, Closed };
    Status status = Status::Launched;
    std::uint64_t id = 0;  // the pool's own, ORCONN's ID
    Peer peer;
    std::optional<net::tcp::endpoint> address;  // the first address it connects to
    std::size_t circuits = 0;
    std::string_view why;     // Failed, Closed: what the link said
    std::string_view reason;  // Failed, Closed: in tor's words (ORCONN's REASON), e.g. IDENTITY, DONE
  };

  struct Hooks {
    std::function<void(const Peer&)> link_open;
    // The link could not be opened, or closed; `was_open` tells which.
    // `transport_down`: it was to go through a route (a pluggable transport)
    // whose listener did not answer, which says nothing about the first hop.
    std::function<void(const Peer&, bool was_open, bool transport_down, std::string_view why)> link_closed;
    // Asked before a new link is made; nullopt: connect to the addresses given.
    std::function<std::optional<LinkRoute>(const Peer&)> route;
    // Every link launched, opened, failed or closed.
    std::function<void(const LinkReport&)> report;
  };

  LinkPool(net::asio::io_context& io, net::asio::ssl::context& tls, net::Scheduler& scheduler, const net::Clock& clock,
           net::ClientLink::Options options, Hooks hooks, net::LogSink log);
  ~LinkPool();
  LinkPool(const LinkPool&) = delete;
  LinkPool& operator=(const LinkPool&) = delete;

  // A new circuit through `first_hop_at` (the first hop's addresses). The
  // circuit starts building as soon as the link is open. Null when no
  // circuit ID is free on that link, or its route is unavailable.
  Circuit* launch(CircuitInfo info, std::vector<net::tcp::endpoint> first_hop_at, Circuit::Hooks hooks);

  [[nodiscard]] std::size_t links_open() const;
  [[nodiscard]] std::size_t circuits() const;
  // Closes everything (shutdown).
  void close_all();

 private:
  struct Entry;
  Entry* entry_for(const Peer& peer, const std::vector<net::tcp::endpoint>& at);
  Entry* find(const Peer& peer);
  Entry* find(std::uint64_t key);
  void on_link_open(Entry& e);
  void on_link_cell(Entry& e, const cell::CellView& c);
  void on_link_closed(std::uint64_t key, std::string_view why);
  void reap(std::uint64_t key, CircId circ);
  [[nodiscard]] static LinkReport report_of(const Entry& e);
  void report(const Entry& e, LinkReport::Status status, std::string_view why = {}, std::string_view reason = {});

  std::shared_ptr<int> life_ = std::make_shared<int>(0);
  net::asio::io_context& io_;
  net::asio::ssl::context& tls_;
  net::Scheduler& scheduler_;
  const net::Clock& clock_;
  net::ClientLink::Options options_;
  Hooks hooks_;
  net::LogSink log_;
  // By a key of ours: a link's identities may be learned only once it opens.
  std::map<std::uint64_t, std::unique_ptr<Entry>> links_;
  std::uint64_t next_key_ = 1;
};

}  // namespace conflux::client
