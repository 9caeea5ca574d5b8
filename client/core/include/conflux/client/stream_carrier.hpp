#pragma once
// What a stream rides on: one circuit, or a Conflux set of circuits
// (ConfluxTunnel). ClientStream and the SOCKS session see only this, so a
// stream works the same over either. The carrier owns the stream-ID space
// and tells the attached streams what arrived for them, when DATA may go
// again, and when it is gone (after which nobody may use the pointer).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/bytes/strong_int.hpp"
#include "conflux/cell/destroy_cell.hpp"
#include "conflux/cell/relay_msg.hpp"
#include "conflux/proto/cc_params.hpp"

namespace conflux::client {

// A relay's Ed25519 identity (LinkPool::Identity is the same type).
using RelayIdentity = std::array<std::uint8_t, 32>;

// What a stream attached to a carrier is told.
class StreamEvents {
 public:
  virtual ~StreamEvents() = default;
  virtual void on_stream_msg(const cell::RelayMsg& msg) = 0;
  // The carrier may accept DATA again (a window reopened).
  virtual void on_circuit_writable() = 0;
  // The carrier is gone; the stream must not use it any more.
  virtual void on_circuit_closed(std::string_view why) = 0;
};

// Registers `events` under the next free stream ID of a carrier (IDs are
// picked in turn, skipping those in use and zero); nothing when all 65535
// are taken.
inline std::optional<StreamId> add_stream(std::map<std::uint16_t, StreamEvents*>& streams, std::uint16_t& next,
                                          StreamEvents& events) {
  if (streams.size() >= 0xffff) return std::nullopt;
  for (;;) {
    const std::uint16_t id = next;
    next = static_cast<std::uint16_t>(next == 0xffff ? 1 : next + 1);
    if (streams.emplace(id, &events).second) return StreamId{id};
  }
}

// The streams to tell that the carrier takes DATA again, each time starting
// one further along: the first told sends first and can take the whole
// reopened window, so a fixed order (lowest ID first) would starve the
// highest IDs of a busy circuit.
inline std::vector<StreamEvents*> wake_order(const std::map<std::uint16_t, StreamEvents*>& streams,
                                             std::size_t& turn) {
  std::vector<StreamEvents*> out;
  out.reserve(streams.size());
  for (const auto& [id, s] : streams) out.push_back(s);
  if (!out.empty()) {
    std::rotate(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(turn % out.size()), out.end());
    ++turn;
  }
  return out;
}

class StreamCarrier {
 public:
  virtual ~StreamCarrier() = default;
  // Picks a free stream ID and remembers the sink; nothing when the carrier
  // takes no streams now (not open, full, a Conflux leg).
  [[nodiscard]] virtual std::optional<StreamId> attach(StreamEvents& events) = 0;
  virtual void detach(StreamId id) = 0;
  // A message of stream `id` to the exit. DATA needs can_send_data().
  virtual bool send(StreamId id, const cell::RelayMsg& msg) = 0;
  [[nodiscard]] virtual bool can_send_data() const = 0;
  // Set when the exit agreed to congestion control (prop 324), with the
  // parameters it runs: streams then use XON/XOFF, never stream SENDMEs.
  // Known once the carrier is open.
  [[nodiscard]] virtual const proto::CcParams* congestion_control() const { return nullptr; }
  // Closes the carrier (every stream on it is told).
  virtual void close(cell::DestroyReason reason, std::string_view why) = 0;
  // The pool's name for it (logs, metrics).
  [[nodiscard]] virtual std::uint64_t serial() const = 0;
  // "circuit 7", "Conflux set 2": for the log.
  [[nodiscard]] virtual std::string name() const = 0;
  [[nodiscard]] virtual RelayIdentity exit_identity() const = 0;
  // Its window and queue state on one line, for a stalled stream's debug log.
  [[nodiscard]] virtual std::string describe_flow() const { return {}; }
  // The circuit a controller sees the streams on (control-spec CircuitID):
  // the circuit's serial; for a Conflux set, one of its legs' (0: none yet).
  [[nodiscard]] virtual std::uint64_t control_circuit_id() const { return serial(); }
};

}  // namespace conflux::client
