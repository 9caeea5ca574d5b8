#pragma once
// An in-process relay for the wire demonstration: it holds real keys and
// answers real cells (CREATE2 with ntor-v3, RELAY/RELAY_EARLY with tor1
// crypto, EXTEND2, BEGIN, DATA), but cells travel by function call instead of
// TLS. The networked relay core is conflux-relay (issue 3); this stays a
// walkthrough of the wire layer.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "conflux/bytes/strong_int.hpp"
#include "conflux/cell/ed25519_cert.hpp"
#include "conflux/cell/relay_msg.hpp"
#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/ntor_v3.hpp"
#include "conflux/crypto/relay_crypto.hpp"

namespace conflux::demo {

using CellBytes = std::vector<std::uint8_t>;

class DemoRelay;
// Finds a relay by its Ed25519 identity, as a relay would look up a channel.
using RelayDirectory = std::function<DemoRelay*(const crypto::Ed25519Public&)>;
// Prints one line per cell that crosses a hop.
using CellTrace = std::function<void(const std::string& from, const std::string& to, const CellBytes&)>;

class DemoRelay {
 public:
  DemoRelay(std::string name, bool is_exit, std::uint64_t now);

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const crypto::Ed25519Public& identity() const noexcept { return identity_.public_key(); }
  [[nodiscard]] const crypto::X25519Public& onion_key() const noexcept { return ntor_.onion_key.public_key(); }
  // The identity -> signing key certificate (type 4) a relay sends in CERTS.
  [[nodiscard]] const std::vector<std::uint8_t>& signing_cert() const noexcept { return signing_cert_; }

  // Handles one cell from the client side; returns the cells that travel
  // back toward the client, in order.
  std::vector<CellBytes> receive(const CellBytes& cell, const RelayDirectory& dir, const CellTrace& trace);

 private:
  std::vector<CellBytes> on_create2(CircId circ, bytes::ByteSpan payload);
  std::vector<CellBytes> on_relay(CircId circ, bytes::ByteSpan payload, const RelayDirectory& dir,
                                  const CellTrace& trace);
  std::vector<CellBytes> on_recognized(const cell::RelayPayload& payload, const RelayDirectory& dir,
                                       const CellTrace& trace);
  CellBytes originate(StreamId stream, const cell::RelayMsg& msg);

  std::string name_;
  bool is_exit_;
  crypto::Ed25519Keypair identity_;
  crypto::Ed25519Keypair signing_;
  std::vector<std::uint8_t> signing_cert_;
  crypto::NtorV3ServerKeys ntor_;

  // One circuit is all the walkthrough needs.
  CircId prev_circ_{};
  std::optional<crypto::RelayHopCrypto> hop_;
  DemoRelay* next_ = nullptr;
  CircId next_circ_{};
};

}  // namespace conflux::demo
