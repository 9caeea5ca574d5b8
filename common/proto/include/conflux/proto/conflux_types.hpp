#pragma once
// Vocabulary shared by the Conflux (prop 329) state machines: leg and set
// identifiers, the sequenced cell, the typed errors, and the two checks every
// caller applies before a cell reaches a set (which hop sent it, and whether
// its command belongs to the set or to the leg). docs/CONFLUX.md has the
// whole picture.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>
#include <vector>

#include "conflux/bytes/result.hpp"
#include "conflux/bytes/strong_int.hpp"
#include "conflux/cell/relay_command.hpp"

namespace conflux::proto {

struct ConfluxLegTag {};
struct ConfluxSetTag {};
// Chosen by the caller (e.g. from the circuit); unique within a set.
using LegId = StrongInt<ConfluxLegTag, std::uint32_t>;
// Chosen by the caller; unique within one ReorderBudget / ExitLinkRegistry.
using SetId = StrongInt<ConfluxSetTag, std::uint64_t>;

// Injected time: callers pass "now"; nothing here reads a clock.
using ConfluxClock = std::chrono::steady_clock;
using ConfluxTime = ConfluxClock::time_point;

using ConfluxOk = std::monostate;

// A multiplexed relay message as the set stores it: the command, its stream
// and its body (not yet decoded: the stream layer decodes it when delivered).
struct SeqCell {
  cell::RelayCommand command = cell::RelayCommand::Data;
  StreamId stream{};
  std::vector<std::uint8_t> body;
  friend bool operator==(const SeqCell&, const SeqCell&) = default;
};

enum class ConfluxError : std::uint8_t {
  // Local misuse (a bug in the caller, not the peer's fault).
  UnknownLeg,
  DuplicateLeg,
  NotMultiplexed,      // a leg-local command handed to the set
  SeqIncoherent,       // numbers that cannot come from a correct peer or caller
  SwitchOverflow,      // the relative number does not fit SWITCH's 32 bits
  // The peer's fault: the caller closes the set (only that set).
  BeginDirOnSet,       // BEGIN_DIR on a conflux leg (TROVE-2026-008)
  WrongHop,            // a conflux or multiplexed cell not from the join point
  DuplicateSeq,        // already delivered or already queued
  SeqBeyondWindow,     // more than the reorder window ahead of delivery
  SwitchZero,          // SWITCH(0) where it can only be a signal
  SwitchBackToBack,    // two SWITCHes on a leg with no cell between
  SwitchBeyondWindow,  // a SWITCH jumping past the reorder window
  // Memory: the caller closes the set.
  SetQueueFull,        // the set's out-of-order bytes would exceed its cap
  GlobalQueueFull,     // the shared out-of-order budget would be exceeded
  RetransmitFull,      // the leg's retransmit history exceeded its cap
  ResendUnavailable,   // a dead leg's unacknowledged cells were not kept
  AckBeyondSent,       // a leg acknowledged more cells than it carried
  // Linking.
  TooManyLegs,         // legs per set, or launches per set, exhausted
  TooManySets,         // per-origin or global set cap at the exit
  TooManyOriginLegs,   // per-origin leg cap at the exit
  UnexpectedLink,      // a second LINK on a leg before its LINKED_ACK
  UnexpectedLinked,    // LINKED on a leg that is not waiting for one
  NonceMismatch,       // LINKED, or a relinking LINK, with another set's nonce
  UnexpectedLinkedAck, // LINKED_ACK for an unknown leg
  DuplicateLinkedAck,  // a second LINKED_ACK on a leg
  LinkTimeout,         // LINKED or LINKED_ACK arrived after its deadline
  // Sending.
  WindowClosed,        // DATA while no leg can send (wait for a SENDME)
};

[[nodiscard]] std::string_view to_string(ConfluxError e) noexcept;

// Local misuse, as opposed to something the peer did.
[[nodiscard]] constexpr bool is_local_error(ConfluxError e) noexcept {
  switch (e) {
    case ConfluxError::UnknownLeg:
    case ConfluxError::DuplicateLeg:
    case ConfluxError::NotMultiplexed:
    case ConfluxError::SwitchOverflow:
      return true;
    default:
      return false;
  }
}

template <class T>
using ConfluxResult = Result<T, ConfluxError>;

// Where a cell that arrives on a leg goes.
enum class LegCellRoute : std::uint8_t {
  Sequenced,  // BEGIN, DATA, END, CONNECTED, RESOLVE(D), XOFF, XON: through the set
  LegLocal,   // everything else (SENDME, conflux commands, ...): the leg itself
};

// BEGIN_DIR is refused on a leg in both directions (tor 0.4.8.24 / 0.4.9.7):
// directory requests belong to ordinary circuits. Every other command gets
// its route; unknown commands are leg-local, as tor treats them.
//
// With a stream, a stream-level SENDME is sequenced too (tor leaves it
// leg-local): a leg that dies would otherwise take the SENDMEs in flight on
// it along, and each one lost shrinks the peer's stream window for good.
// Sequenced, it is resent on the replacement leg like any other cell. A
// circuit SENDME (stream 0) stays the leg's own.
[[nodiscard]] ConfluxResult<LegCellRoute> route_leg_cell(cell::RelayCommand cmd, StreamId stream = StreamId{0}) noexcept;

// The client applies this to every cell on a leg: 'from' is the hop whose
// relay crypto recognised the cell, 'join_point' the hop number of the
// shared exit on that leg. Anything else (a middle relay injecting cells) is
// WrongHop. At the exit the cell comes from the client by construction.
[[nodiscard]] ConfluxResult<ConfluxOk> check_join_point(HopNum from, HopNum join_point) noexcept;

}  // namespace conflux::proto
