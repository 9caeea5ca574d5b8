#pragma once
// A client's channel to a relay (tests now, conflux-proxy later): TCP connect
// with a timeout, TLS, and the link handshake as an unauthenticated initiator
// that checks the relay's identity: its Ed25519 identity, its RSA
// fingerprint, or both (a relay named only by RSA fingerprint, as tor's
// Bridge and FallbackDir lines name them, proves it in its CERTS cell, and the
// link learns its Ed25519 identity from the same cell). Once open, the caller sends
// circuit cells (through the channel's mux and the scheduler, never directly
// to the socket) and receives circuit cells through a callback.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/bytes/result.hpp"
#include "conflux/cell/destroy_cell.hpp"
#include "conflux/net/link_channel.hpp"
#include "conflux/proto/cc_vegas.hpp"
#include "conflux/proto/circuit_ids.hpp"

namespace conflux::net {

class ClientLink final : private LinkChannel::Owner {
 public:
  struct Callbacks {
    std::function<void()> on_open;
    // CREATED2, RELAY, DESTROY... for one of our circuits.
    std::function<void(const cell::CellView&)> on_cell;
    // Once, whether the link was open or never opened.
    std::function<void(std::string_view reason)> on_closed;
    // Circuits whose queue on the link drained below cellq_low (they were
    // blocked: channel_state()); their streams may send again.
    std::function<void(std::span<const CircId>)> on_unblocked;
  };
  struct Options {
    std::chrono::milliseconds connect_timeout = std::chrono::seconds(10);
    std::chrono::milliseconds handshake_timeout = std::chrono::seconds(10);
    std::size_t max_circuits = 1024;
    Channel::Limits channel_limits{};
    // The address to connect from (tor's OutboundBindAddress); none: the kernel's choice.
    std::optional<asio::ip::address> bind_address;
  };
  enum class State : std::uint8_t { Idle, Connecting, Handshaking, Open, Closed };

  // `tls` (a client context, make_tls_client_context()), `scheduler` and
  // `clock` must outlive the link.
  ClientLink(asio::io_context& io, asio::ssl::context& tls, Scheduler& scheduler, const Clock& clock,
             Callbacks callbacks, Options options, LogSink log = {});
  ~ClientLink() override;
  ClientLink(const ClientLink&) = delete;
  ClientLink& operator=(const ClientLink&) = delete;

  // Run on the connected socket before TLS, e.g. a pluggable transport's
  // SOCKS5 CONNECT to the bridge (the caller's layer supplies it; the link
  // stays generic). A non-zero error closes the link with `why`'s text. It
  // shares connect_timeout with the TCP connect.
  struct PreludeResult {
    boost::system::error_code error;
    std::string why;
  };
  using Prelude = std::function<awaitable<PreludeResult>(tcp::socket&)>;

  // Whom the link must reach: at least one of the two identities. A peer
  // that proves another closes the link (IdentityMismatch, tor's "identity
  // mismatch").
  struct Expected {
    std::optional<crypto::Ed25519Public> ed25519;
    std::optional<crypto::RsaFingerprint> rsa;
  };

  // Connects to the first endpoint that answers, runs `prelude` (if any) and
  // opens the link, expecting `identity`. Once per object.
  void connect(std::vector<tcp::endpoint> endpoints, const crypto::Ed25519Public& identity, Prelude prelude = {});
  void connect(std::vector<tcp::endpoint> endpoints, Expected expected, Prelude prelude = {});

  [[nodiscard]] State state() const noexcept { return state_; }
  [[nodiscard]] bool is_open() const noexcept { return state_ == State::Open; }
  // The TCP connect succeeded (the prelude, TLS or the handshake may still
  // have failed): tells "nothing listens there" from "the peer failed".
  [[nodiscard]] bool tcp_connected() const noexcept { return tcp_connected_; }
  // Why the link closed; failure() is set when the handshake rejected the
  // peer (IdentityMismatch for the wrong relay).
  [[nodiscard]] const std::string& close_reason() const noexcept { return close_reason_; }
  [[nodiscard]] std::optional<proto::LinkFailure> failure() const noexcept { return failure_; }
  [[nodiscard]] LinkChannel* link() noexcept { return link_.get(); }
  // Once open: the identities the peer proved (both, for a relay of ours or
  // tor's, whichever one the link was asked for).
  [[nodiscard]] std::optional<crypto::Ed25519Public> peer_identity() const;
  [[nodiscard]] std::optional<crypto::RsaFingerprint> peer_rsa_identity() const;

  // A circuit ID from the initiator's half; release it when the circuit is gone.
  [[nodiscard]] Result<CircId, proto::CircIdError> allocate_circ_id() { return ids_.allocate(); }
  void release_circ_id(CircId id) { ids_.release(id); }

  // Queues one fixed-size circuit cell. DESTROY goes on the control path;
  // the rest in the circuit's queue. False if the link is not open, the cell
  // does not encode, or the queue is full.
  bool send(CircId circ, cell::CellCommand cmd, bytes::ByteSpan payload);
  bool send_destroy(CircId circ, cell::DestroyReason reason);
  // A circuit's queue on this link, for congestion control (tor's
  // circuit_blocked_on_n_chan and n_chan_cells, with cellq_high/cellq_low's
  // defaults); not blocked while the link is not open.
  [[nodiscard]] proto::CcChannelState channel_state(CircId circ) const;

  void close(std::string_view reason);

 private:
  void on_link_open(LinkChannel& link) override;
  void on_link_cell(LinkChannel& link, const cell::CellView& c) override;
  void on_link_unblocked(LinkChannel& link, std::span<const CircId> circs) override;
  void on_link_closed(LinkChannel& link, std::string_view reason) override;
  awaitable<void> run_connect(std::weak_ptr<int> life, std::vector<tcp::endpoint> endpoints,
                              Expected expected, Prelude prelude);
  awaitable<PreludeResult> run_prelude(tcp::socket& socket, const Prelude& prelude,
                                       std::chrono::steady_clock::time_point deadline);
  void closed(std::string_view reason);

  std::shared_ptr<int> life_ = std::make_shared<int>(0);
  asio::io_context& io_;
  asio::ssl::context& tls_;
  Scheduler& scheduler_;
  const Clock& clock_;
  Callbacks callbacks_;
  Options options_;
  LogSink log_;
  proto::CircIdTable ids_;
  std::shared_ptr<LinkChannel> link_;
  State state_ = State::Idle;
  bool tcp_connected_ = false;
  std::string close_reason_;
  std::optional<proto::LinkFailure> failure_;
};

}  // namespace conflux::net
