#pragma once
// A circuit used as one leg of a Conflux set. In leg mode a Circuit takes no
// streams: everything that arrives on it (with the hop it came from), its
// writable edge, its opening and its close go to its LegOwner, which runs
// the set. The owner sees legs only through LegCircuit, so it can be tested
// with fake legs.
#include <cstdint>
#include <optional>
#include <string_view>

#include "conflux/bytes/strong_int.hpp"
#include "conflux/cell/destroy_cell.hpp"
#include "conflux/cell/relay_msg.hpp"
#include "conflux/proto/cc_negotiation.hpp"
#include "conflux/proto/cc_vegas.hpp"

namespace conflux::client {

struct CircuitInfo;

class LegOwner {
 public:
  virtual ~LegOwner() = default;
  // Every hop is built: linking can start.
  virtual void on_leg_open(std::uint64_t serial) = 0;
  // A relay message from `hop` (stream 0: circuit-level, including every
  // accepted circuit SENDME from the last hop).
  virtual void on_leg_msg(std::uint64_t serial, HopNum hop, StreamId stream, const cell::RelayMsg& msg) = 0;
  // The circuit's package window reopened.
  virtual void on_leg_writable(std::uint64_t serial) = 0;
  // Once, whatever the phase; the circuit is not to be used afterwards.
  virtual void on_leg_closed(std::uint64_t serial, std::string_view why) = 0;
  // The congestion control a leg asks its exit for (prop 324: tor's Conflux
  // needs it), or null for fixed windows. Read when the leg is launched.
  [[nodiscard]] virtual const proto::CcParams* leg_congestion_control() const { return nullptr; }
};

class LegCircuit {
 public:
  virtual ~LegCircuit() = default;
  // Path (first hop .. exit; the last hop is the join point) and serial.
  [[nodiscard]] virtual const CircuitInfo& info() const = 0;
  // A message to the last hop.
  virtual bool send(StreamId id, const cell::RelayMsg& msg) = 0;
  virtual void close(cell::DestroyReason reason, std::string_view why) = 0;
  // Null gives the circuit back to nobody: it then reports nothing.
  virtual void set_leg_owner(LegOwner* owner) = 0;
  // What the exit agreed to (set once the circuit is built), and the
  // congestion window it then runs; null/nullopt with fixed windows.
  [[nodiscard]] virtual std::optional<proto::CcAgreement> leg_cc_agreement() const { return std::nullopt; }
  [[nodiscard]] virtual const proto::Vegas* leg_vegas() const { return nullptr; }
  // Its cells wait past cellq_high on the link to its first hop: the set's
  // scheduler gives it no new DATA (tor's circuit_ready_to_send), and
  // on_leg_writable follows once they drained.
  [[nodiscard]] virtual bool blocked_on_channel() const { return false; }
};

}  // namespace conflux::client
