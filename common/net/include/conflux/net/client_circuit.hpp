#pragma once
// A small client-side circuit, sans-I/O: builds a circuit hop by hop with
// ntor-v3 (CREATE2 to the first relay, or CREATE_FAST when its onion key is
// not known yet, then EXTEND2 in RELAY_EARLY cells),
// keeps the tor1 crypto of every hop, and sends and receives relay messages.
// Cells go out through a sink (e.g. ClientLink::send); the caller feeds the
// cells of this circuit to on_cell(). Circuit-level SENDMEs (v1) are sent
// and checked here; stream-level flow control is the caller's.
//
// This is the helper for tests and the first proxy; the client circuit
// manager (path selection, timeouts, Conflux legs) builds on it later.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "conflux/bytes/strong_int.hpp"
#include "conflux/cell/channel_cell.hpp"
#include "conflux/cell/destroy_cell.hpp"
#include "conflux/cell/relay_link_spec.hpp"
#include "conflux/cell/relay_msg.hpp"
#include "conflux/crypto/create_fast.hpp"
#include "conflux/crypto/ed25519.hpp"
#include "conflux/crypto/ntor_v3.hpp"
#include "conflux/crypto/relay_crypto.hpp"
#include "conflux/crypto/x25519.hpp"
#include "conflux/proto/flow_control_sendme.hpp"

namespace conflux::net {

// What a client knows about a relay (from its descriptor).
struct HopTarget {
  crypto::Ed25519Public identity{};
  crypto::X25519Public onion_key{};
  // Addresses for EXTEND2 (IPv4/IPv6); the Ed25519 identity is added.
  std::vector<cell::LinkSpec> link_specs;
};

struct ReceivedMsg {
  HopNum hop;
  StreamId stream;
  cell::RelayMsg msg;
};

class ClientCircuit {
 public:
  using CellSink = std::function<bool(CircId, cell::CellCommand, bytes::ByteSpan)>;
  enum class State : std::uint8_t { Idle, Extending, Ready, Closed };

  static constexpr std::size_t kDefaultMaxInbox = 4096;

  ClientCircuit(CircId id, CellSink sink, std::size_t max_inbox = kDefaultMaxInbox);

  // CREATE2 (ntor-v3) to the first hop. False if not Idle or the cell did not go out.
  bool create(const HopTarget& first);
  // CREATE_FAST to the first hop (tor-spec 5.1.3): no onion key needed; the
  // link's TLS handshake is what authenticated the relay. Used for a one-hop
  // circuit to a bridge to fetch its descriptor (BEGIN_DIR). False if not
  // Idle or the cell did not go out.
  bool create_fast();
  // EXTEND2 to the last hop, asking it to extend to `next`. Only when Ready.
  bool extend(const HopTarget& next);
  // A relay message to `hop` (RELAY cell). DATA needs an open package window.
  bool send(HopNum hop, StreamId stream, const cell::RelayMsg& msg);
  // Tears the circuit down with DESTROY.
  void destroy(cell::DestroyReason reason);

  // A cell the link received for this circuit.
  void on_cell(const cell::CellView& c);

  [[nodiscard]] CircId id() const noexcept { return id_; }
  [[nodiscard]] State state() const noexcept { return state_; }
  [[nodiscard]] std::size_t hops() const noexcept { return crypto_.hop_count(); }
  // Set when the relay side destroyed the circuit (DESTROY or TRUNCATED).
  [[nodiscard]] std::optional<cell::DestroyReason> destroyed() const noexcept { return destroyed_; }
  // Set when we gave up on the circuit ourselves (bad handshake, a cell no
  // hop recognized, an overflowing inbox...).
  [[nodiscard]] const std::optional<std::string>& error() const noexcept { return error_; }
  // Stream messages (and anything else not consumed here), oldest first.
  // Every circuit SENDME accepted from the last hop is also reported here,
  // as stream 0, after the package window took it (Conflux legs need it).
  [[nodiscard]] std::deque<ReceivedMsg>& inbox() noexcept { return inbox_; }
  [[nodiscard]] bool can_send_data() const noexcept { return package_.can_send(); }

 private:
  bool send_relay(HopNum hop, StreamId stream, const cell::RelayMsg& msg, bool early);
  void on_created2(bytes::ByteSpan payload);
  void on_created_fast(bytes::ByteSpan payload);
  void on_relay(bytes::ByteSpan payload);
  bool add_hop(bytes::ByteSpan reply);
  bool add_hop(const crypto::KeyMaterial& material);
  void fail(std::string why);

  CircId id_;
  CellSink sink_;
  std::size_t max_inbox_;
  State state_ = State::Idle;
  crypto::ClientRelayCrypto crypto_;
  std::optional<crypto::NtorV3ClientState> pending_;
  std::optional<crypto::FastClientState> pending_fast_;  // between CREATE_FAST and CREATED_FAST
  unsigned early_left_ = 8;  // RELAY_EARLY budget (tor-spec 5.6)
  proto::CircuitSendmeSender package_;    // DATA we send to the last hop
  proto::CircuitSendmeReceiver deliver_;  // DATA the last hop sends us
  std::deque<ReceivedMsg> inbox_;
  std::optional<cell::DestroyReason> destroyed_;
  std::optional<std::string> error_;
};

}  // namespace conflux::net
