#pragma once
// A channel that opens itself with the link handshake (tor-spec 4): once TLS
// is up it computes the TLS facts (certificate digest, RFC 5705 exporter),
// runs proto::LinkHandshake over the channel's framed cells, queues the
// handshake's output unchanged on the control path, switches the channel's
// link version when VERSIONS settle, and gives up after a timeout. After the
// handshake it hands circuit cells to its owner and drops padding.
//
// Lifetime: the owner keeps the shared_ptr. Every callback into the owner is
// made while this object holds a reference to itself, so the owner may drop
// its reference from inside a callback. Destroying an open LinkChannel
// closes it without calling the owner.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conflux/net/channel.hpp"
#include "conflux/net/clock.hpp"
#include "conflux/net/log_sink.hpp"
#include "conflux/proto/link_handshake.hpp"

namespace conflux::net {

class LinkChannel final : public Channel::Events, public std::enable_shared_from_this<LinkChannel> {
 public:
  class Owner {
   public:
    virtual ~Owner() = default;
    // The handshake finished: done() says who the peer is. Cells may flow.
    virtual void on_link_open(LinkChannel&) = 0;
    // A circuit cell (CREATE*, CREATED*, RELAY, RELAY_EARLY, DESTROY) on an
    // open channel. Padding and repeated handshake cells never get here.
    virtual void on_link_cell(LinkChannel&, const cell::CellView&) = 0;
    // Circuits of this link that are no longer blocked on it (Channel::Events).
    virtual void on_link_unblocked(LinkChannel&, std::span<const CircId>) {}
    // Exactly once, open or not. failure() tells a failed handshake apart.
    virtual void on_link_closed(LinkChannel&, std::string_view reason) = 0;
    // Bytes crossing TLS (for counters).
    virtual void on_link_bytes(LinkChannel&, std::size_t /*n*/, bool /*inbound*/) {}
  };

  struct Params {
    Channel::Role role = Channel::Role::Responder;
    // Initiator: the Ed25519 identity and/or RSA fingerprint we mean to
    // reach (at least one required).
    std::optional<crypto::Ed25519Public> expected_peer;
    std::optional<crypto::RsaFingerprint> expected_rsa;
    // A relay's credentials. Required for a responder; an initiator without
    // them is a client (or bridge user) and does not authenticate.
    std::optional<proto::LinkCredentials> credentials;
    // Our advertised addresses for NETINFO (a client sends none).
    std::vector<cell::NetinfoAddress> our_addresses;
    std::chrono::milliseconds handshake_timeout{10'000};
    Channel::Limits channel_limits{};
    proto::LinkLimits link_limits{};
    // A NETINFO clock difference larger than this is logged (never fatal).
    std::chrono::seconds skew_warning{3600};
  };

  // `scheduler`, `clock`, `owner` and the TLS context behind `stream` must
  // outlive the channel's use (closing it is enough).
  static std::shared_ptr<LinkChannel> create(TlsStream stream, Scheduler& scheduler, const Clock& clock,
                                             Owner& owner, Params params, LogSink log = {});
  LinkChannel(const LinkChannel&) = delete;
  LinkChannel& operator=(const LinkChannel&) = delete;
  ~LinkChannel() override;

  // Spawns TLS handshake, link handshake and read loop; arms the timeout.
  void start();

  [[nodiscard]] std::uint64_t id() const noexcept { return channel_->id(); }
  [[nodiscard]] Channel& channel() noexcept { return *channel_; }
  [[nodiscard]] Channel::Role role() const noexcept { return channel_->role(); }
  [[nodiscard]] bool is_open() const noexcept { return done_.has_value() && !channel_->closed(); }
  [[nodiscard]] bool closed() const noexcept { return channel_->closed(); }
  // Set once the handshake finished.
  [[nodiscard]] const std::optional<proto::LinkDone>& done() const noexcept { return done_; }
  // The peer's proven Ed25519 identity (always for an initiator; for a
  // responder only when the initiator authenticated as a relay).
  [[nodiscard]] std::optional<crypto::Ed25519Public> peer_identity() const;
  // Its RSA identity's fingerprint, proven with peer_identity().
  [[nodiscard]] std::optional<crypto::RsaFingerprint> peer_rsa_identity() const;
  // Set when the handshake failed (including our own timeout: nullopt then,
  // see timed_out()).
  [[nodiscard]] std::optional<proto::LinkFailure> failure() const noexcept { return failure_; }
  [[nodiscard]] bool timed_out() const noexcept { return timed_out_; }
  [[nodiscard]] std::uint64_t cells_ignored() const noexcept { return ignored_; }

  // A circuit cell (already encoded with its circuit ID) into the mux; wakes
  // the scheduler. CircuitQueueFull is the caller's cue to close the circuit.
  // `queued_at` is the cell's time in the queue (the clock's now() if unset).
  [[nodiscard]] proto::MuxPush send_cell(CircId circ, const proto::WireCell& cell,
                                         std::optional<Clock::Monotonic::time_point> queued_at = std::nullopt);
  // A channel-level cell (DESTROY) on the control path, ahead of circuit cells.
  [[nodiscard]] bool send_control(CircId circ, cell::CellCommand cmd, bytes::ByteSpan payload);

  void close(std::string_view reason);

  // Channel::Events
  void on_tls_ready(Channel&) override;
  void on_raw_bytes(Channel&, bytes::ByteSpan bytes, bool inbound) override;
  void on_cell(Channel&, const cell::CellView& c) override;
  void on_circuits_unblocked(Channel&, std::span<const CircId> circs) override;
  void on_closed(Channel&, std::string_view reason) override;

 private:
  LinkChannel(TlsStream stream, Scheduler& scheduler, const Clock& clock, Owner& owner, Params params,
              LogSink log);

  void handshake_cell();
  void flush_handshake();
  void finish_handshake();
  void log(LogLevel level, std::string_view message) const;

  const Clock& clock_;
  Owner& owner_;
  Params params_;
  LogSink log_;
  std::shared_ptr<Channel> channel_;
  asio::steady_timer timeout_;
  std::optional<proto::LinkHandshake> hs_;
  std::optional<proto::LinkDone> done_;
  std::optional<proto::LinkFailure> failure_;
  bool timed_out_ = false;
  bool dying_ = false;  // in the destructor: no more owner callbacks
  std::uint64_t ignored_ = 0;
};

// Every link's TCP socket, connected or accepted: TCP_NODELAY. Channels
// write whole cells (a single SENDME, a lone DATA cell) and batch on their
// own (the socket scheduler); Nagle would hold a small write back until the
// previous one is acknowledged, which on a busy path adds the peer's
// delayed-ACK time to the round trip that congestion control measures.
void set_link_socket_options(tcp::socket& socket);

// TCP to the first of `endpoints` that accepts, each attempt bounded by
// `per_attempt`. On failure the error is the last attempt's (host_not_found
// for an empty list, timed_out for a timeout). `local`: the source address
// to connect from (of the same family as the endpoint; others are skipped).
awaitable<std::pair<boost::system::error_code, tcp::socket>> connect_tcp(
    std::vector<tcp::endpoint> endpoints, std::chrono::milliseconds per_attempt,
    std::optional<asio::ip::address> local = std::nullopt);

}  // namespace conflux::net
