#pragma once
// The link handshake of tor-spec 4 over an established TLS connection,
// sans-I/O, one object per channel, for either role:
//
//   initiator                                   responder
//   VERSIONS                         ------>
//                                    <------    VERSIONS, CERTS(1,2,4,5,7),
//                                               AUTH_CHALLENGE(method 3), NETINFO
//   [CERTS(2,4,6,7), AUTHENTICATE(AUTH0003)]    (relays only; clients skip them)
//   NETINFO                          ------>
//
// Using it:
//  - Frame incoming bytes yourself with cell::frame_cell(buf, hs.link_version(),
//    hs.framer_limits()) and pass each whole cell's bytes (the first
//    `consumed` bytes) to on_cell(). The link version changes after VERSIONS,
//    so frame one cell at a time. The object digests these exact bytes
//    (SLOG/CLOG of AUTH0003), hence raw bytes rather than a decoded cell.
//  - After start() and every on_cell(), send take_output() on the TLS
//    connection, unchanged and in order: it too is digested.
//  - Stop once state() is Done or Failed. On Done, bytes after the peer's
//    NETINFO belong to the open channel. On Failed, close the connection.
//
// Only VPADDING may come between the handshake cells (fixed-size PADDING and
// any other command fail the handshake, as tor closes on them).
// A timestamp skew is reported in LinkDone, never a failure.
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "conflux/bytes/reader.hpp"
#include "conflux/cell/certs_cell.hpp"
#include "conflux/cell/channel_cell.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/proto/link_handshake_auth.hpp"
#include "conflux/proto/link_handshake_certs.hpp"
#include "conflux/proto/link_handshake_types.hpp"

namespace conflux::proto {

class LinkHandshake {
 public:
  // `expected_peer`: the identity we meant to reach. With `credentials` we
  // are a relay and authenticate; without, a client (or bridge) and do not.
  static LinkHandshake initiator(const crypto::Ed25519Public& expected_peer,
                                 std::optional<LinkCredentials> credentials, TlsFacts tls,
                                 LinkAddresses addresses, LinkLimits limits = {});
  // The same for a relay named by RSA fingerprint, Ed25519 identity or both.
  static LinkHandshake initiator(ExpectedPeer expected_peer, std::optional<LinkCredentials> credentials,
                                 TlsFacts tls, LinkAddresses addresses, LinkLimits limits = {});
  static LinkHandshake responder(LinkCredentials credentials, TlsFacts tls, LinkAddresses addresses,
                                 LinkLimits limits = {});

  // Initiator: queues VERSIONS. Responder: nothing to do (it speaks second).
  void start();
  // One framed cell, exactly as received. `now`: seconds since the epoch,
  // for certificate expiry, our NETINFO timestamp and the skew.
  void on_cell(bytes::ByteSpan raw_cell, std::uint64_t now);
  // Bytes to write to the TLS connection, in order; empties the queue.
  [[nodiscard]] std::vector<std::uint8_t> take_output();

  // 0 until VERSIONS is settled, then 4 or 5: the framing for the next cell.
  [[nodiscard]] cell::LinkVersion link_version() const noexcept { return link_; }
  // Variable cells longer than what the byte budget still allows are refused
  // by the framer before they are buffered.
  [[nodiscard]] cell::FramerLimits framer_limits() const noexcept;

  [[nodiscard]] LinkState state() const noexcept;
  [[nodiscard]] bool is_initiator() const noexcept { return initiator_; }
  // Set once state() is Done / Failed.
  [[nodiscard]] const std::optional<LinkDone>& done() const noexcept { return done_; }
  [[nodiscard]] std::optional<LinkFailure> failure() const noexcept { return failure_; }

 private:
  enum class Step : std::uint8_t {
    Idle,                // initiator before start()
    AwaitVersions,
    AwaitCerts,          // initiator
    AwaitAuthChallenge,  // initiator
    AwaitNetinfo,        // initiator: responder's NETINFO; responder: after AUTHENTICATE
    AwaitInitiator,      // responder: CERTS or NETINFO
    AwaitAuthenticate,   // responder, after the initiator's CERTS
    Finished,
  };

  LinkHandshake(bool initiator, ExpectedPeer expected_peer,
                std::optional<LinkCredentials> credentials, TlsFacts tls, LinkAddresses addresses,
                LinkLimits limits);

  void fail(LinkFailure f);
  bool emit(cell::CellCommand cmd, bytes::ByteSpan payload, cell::LinkVersion framing);
  bool emit_netinfo(std::uint64_t now);
  void finish(const cell::NetinfoCell& peer, std::uint64_t now);

  void handle(const cell::CellView& c, std::uint64_t now);
  void on_versions(bytes::ByteSpan payload, std::uint64_t now);
  void on_certs(bytes::ByteSpan payload, std::uint64_t now);
  void on_auth_challenge(bytes::ByteSpan payload, std::uint64_t now);
  void on_authenticate(bytes::ByteSpan payload);
  void on_netinfo(bytes::ByteSpan payload, std::uint64_t now);
  bool send_authentication();
  bool emit_certs();
  // TLSSECRETS for AUTH0003 with context `cid`; fails the handshake without one.
  std::optional<Digest32> tls_secrets(const Digest32& cid);

  bool initiator_;
  ExpectedPeer expected_peer_;  // initiator only
  std::optional<LinkCredentials> creds_;
  TlsFacts tls_;
  LinkAddresses addresses_;
  LinkLimits limits_;

  Step step_ = Step::Idle;
  cell::LinkVersion link_ = cell::kLinkNotNegotiated;
  std::vector<std::uint8_t> out_;
  std::size_t cells_in_ = 0;
  std::size_t bytes_in_ = 0;
  std::uint32_t seen_ = 0;  // bit per handshake command already received

  // Running SHA-256 of every byte sent / received (AUTHENTICATE itself
  // excepted). SLOG and CLOG are snapshots of these at the points tor-spec
  // 4.4.2 names, so nothing needs to stop them.
  crypto::Sha256 sent_log_;
  crypto::Sha256 recv_log_;

  std::optional<crypto::Ed25519Public> peer_identity_;
  std::optional<RsaIdentity> peer_rsa_;
  std::optional<InitiatorChain> initiator_chain_;  // responder: from the initiator's CERTS
  Digest32 slog_{};                                // responder: SLOG as of our AUTH_CHALLENGE

  std::optional<LinkDone> done_;
  std::optional<LinkFailure> failure_;
};

}  // namespace conflux::proto
