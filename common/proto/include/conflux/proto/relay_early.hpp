#pragma once
// RELAY_EARLY rules (tor-spec 5.6; tor's command_process_relay_cell and
// connection_edge_process_relay_cell), one small object per circuit.
//
// At a relay:
//  - at most 8 RELAY_EARLY cells may travel outbound (away from the client)
//    on a circuit; the 9th closes the circuit (TORPROTOCOL);
//  - a RELAY_EARLY cell travelling inbound closes the circuit;
//  - an EXTEND or EXTEND2 that arrived in a plain RELAY cell is refused.
//    tor drops that cell (with a rate-limited warning) and keeps the
//    circuit, so closes_circuit() is false for it; not extending is what
//    keeps the path-length limit that RELAY_EARLY exists for.
//
// At the client: the first 8 cells that are EXTEND/EXTEND2 or addressed
// beyond the first hop go out as RELAY_EARLY, as tor does, so a relay cannot
// tell an EXTEND2 from other early cells.
#include <cstdint>
#include <optional>

#include "conflux/bytes/result.hpp"
#include "conflux/cell/relay_command.hpp"

namespace conflux::proto {

inline constexpr std::uint8_t kMaxRelayEarlyPerCircuit = 8;

// Direction of a cell on a circuit at a relay: Outbound comes from the client
// side (p_chan) and goes away from it; Inbound travels towards the client.
enum class CellDirection : std::uint8_t { Outbound, Inbound };

enum class RelayEarlyViolation : std::uint8_t {
  InboundRelayEarly,   // RELAY_EARLY travelling towards the client
  TooManyRelayEarly,   // a 9th outbound RELAY_EARLY
  ExtendNotEarly,      // EXTEND/EXTEND2 in a plain RELAY cell
};

[[nodiscard]] const char* to_string(RelayEarlyViolation v) noexcept;
[[nodiscard]] constexpr bool closes_circuit(RelayEarlyViolation v) noexcept {
  return v != RelayEarlyViolation::ExtendNotEarly;
}

// Relay side.
class RelayEarlyGuard {
 public:
  // Every RELAY / RELAY_EARLY channel cell of this circuit, before it is
  // decrypted or forwarded.
  [[nodiscard]] std::optional<RelayEarlyViolation> on_cell(CellDirection dir, bool is_relay_early) noexcept;
  // A relay message recognized at this hop (outbound only; only EXTEND and
  // EXTEND2 have a rule).
  [[nodiscard]] static std::optional<RelayEarlyViolation> check_recognized(cell::RelayCommand cmd,
                                                                          bool arrived_in_relay_early) noexcept;

  [[nodiscard]] std::uint8_t remaining() const noexcept { return remaining_; }

 private:
  std::uint8_t remaining_ = kMaxRelayEarlyPerCircuit;
};

enum class RelayEarlySendError : std::uint8_t {
  NoRelayEarlyLeft,  // an EXTEND/EXTEND2 would have to go as plain RELAY
};

// Client (origin) side.
class RelayEarlyBudget {
 public:
  // Whether to send this relay message as RELAY_EARLY (true) or RELAY
  // (false); spends one RELAY_EARLY when true.
  [[nodiscard]] Result<bool, RelayEarlySendError> choose(cell::RelayCommand cmd, bool to_first_hop) noexcept;
  [[nodiscard]] std::uint8_t remaining() const noexcept { return remaining_; }

 private:
  std::uint8_t remaining_ = kMaxRelayEarlyPerCircuit;
};

}  // namespace conflux::proto
