#pragma once
// The lifecycle of one stream at an edge (tor-spec 6.2, 6.3), as a pure state
// machine: events in, actions out. It also owns the stream's SENDME windows
// (500 / 50, tor-spec 7.4).
//
//   Connecting  exit: BEGIN received, resolving/connecting.
//               client: BEGIN or BEGIN_DIR sent, waiting for CONNECTED.
//   Resolving   client: RESOLVE sent, waiting for RESOLVED (no stream data).
//   Open        DATA both ways.
//   EndSent     we sent END (our edge closed, failed, or the connect failed):
//               half-closed. Nothing more goes out; cells the peer sent
//               before it saw our END are absorbed, but only as many as it
//               could legitimately have in flight (DATA up to our deliver
//               window, the SENDMEs it still owed us, a CONNECTED or RESOLVED
//               we were waiting for). More is a circuit-level violation
//               (tor-spec 6.3: "SHOULD kill the circuit"); tor's client
//               does the same with its half-closed stream records.
//   Closed      END received (or the END handshake finished): the edge is
//               closed once what was delivered has been flushed; no cell is
//               sent for the stream any more (tor-spec 6.3). Forget it.
//
// Rules for what arrives: DATA before CONNECTED is a protocol error at the
// client (the exit may instead get DATA while connecting: optimistic data,
// which the caller queues until connected). CONNECTED and RESOLVED only
// travel to the client; a second CONNECTED is an error. A client's END
// always carries reason MISC (tor never tells the exit why).
#include <cstdint>
#include <optional>

#include "conflux/bytes/result.hpp"
#include "conflux/cell/relay_command.hpp"
#include "conflux/cell/relay_stream_msgs.hpp"
#include "conflux/proto/flow_control.hpp"

namespace conflux::proto {

enum class StreamRole : std::uint8_t { Client, Exit };
enum class StreamKind : std::uint8_t { Connect, Dir, Resolve };
enum class StreamState : std::uint8_t { Connecting, Resolving, Open, EndSent, Closed };

enum class StreamViolation : std::uint8_t {
  DataBeforeConnected,   // client: DATA while waiting for CONNECTED
  DuplicateConnected,    // a second CONNECTED
  UnexpectedCommand,     // CONNECTED/RESOLVED at the exit, DATA/SENDME on a RESOLVE stream
  UnexpectedResolved,    // RESOLVED on a BEGIN stream
  TooMuchAfterEnd,       // more cells after our END than the peer could have had in flight
  StreamSendmeWithCc,    // stream SENDME on a circuit using congestion control (XON/XOFF)
  FlowControl,           // window violation; see StreamActions::flow_error
};

[[nodiscard]] const char* to_string(StreamViolation v) noexcept;

// What the violation takes down: just this stream (END TORPROTOCOL sent), or
// the whole circuit (the caller closes it with reason TORPROTOCOL).
enum class ViolationScope : std::uint8_t { Stream, Circuit };

struct StreamActions {
  bool deliver_data = false;      // give this DATA's bytes to the edge (exit: queue while connecting)
  bool deliver_resolved = false;  // client: hand the RESOLVED answers to the application
  bool opened = false;            // client: CONNECTED arrived, report success
  bool send_connected = false;    // exit: send CONNECTED now
  std::optional<cell::EndReason> send_end;
  bool send_sendme = false;       // send a stream-level SENDME now
  bool resume_reading = false;    // the package window reopened
  bool close_edge = false;        // close the edge connection (after flushing delivered data)
  std::optional<cell::EndReason> peer_end;  // the reason the peer's END gave
  std::optional<StreamViolation> violation;
  ViolationScope scope = ViolationScope::Stream;
  std::optional<FlowError> flow_error;
  bool dropped = false;           // the cell was ignored (absorbed after END, or unknown)

  [[nodiscard]] bool closes_circuit() const noexcept {
    return violation.has_value() && scope == ViolationScope::Circuit;
  }
};

enum class StreamSendError : std::uint8_t {
  NotOpen,       // DATA may not be sent in this state
  WindowEmpty,   // the package window is 0: wait for a SENDME
};

class StreamMachine {
 public:
  struct Options {
    // False on circuits that negotiated congestion control: no stream
    // SENDMEs, XON/XOFF instead (prop 324).
    bool sendme_windows = true;
  };

  // Exit side, after a BEGIN or BEGIN_DIR (RESOLVE needs no stream state at
  // the exit). Starts Connecting.
  static StreamMachine exit_stream(StreamKind kind);
  static StreamMachine exit_stream(StreamKind kind, Options options);
  // Client side, after sending BEGIN / BEGIN_DIR (Connecting) or RESOLVE
  // (Resolving).
  static StreamMachine client_stream(StreamKind kind);
  static StreamMachine client_stream(StreamKind kind, Options options);

  [[nodiscard]] StreamState state() const noexcept { return state_; }
  [[nodiscard]] StreamRole role() const noexcept { return role_; }
  [[nodiscard]] StreamKind kind() const noexcept { return kind_; }
  [[nodiscard]] CellCount package_window() const noexcept { return package_.remaining(); }
  [[nodiscard]] CellCount deliver_window() const noexcept { return deliver_.remaining(); }

  // Local events.
  StreamActions connect_succeeded();                  // exit: connected (or directory ready)
  StreamActions connect_failed(cell::EndReason why);  // exit: resolve/connect failed, or policy
  StreamActions edge_closed(cell::EndReason why = cell::EndReason::Done);  // EOF or error on our edge
  // One DATA cell is about to go out. Clients may send optimistic data while
  // Connecting. Exhausted: stop reading the edge until a SENDME.
  [[nodiscard]] Result<WindowStatus, StreamSendError> data_sent();
  // A stream SENDME deferred because the edge was backlogged: call when it
  // drains. True if one should be sent now.
  bool take_deferred_sendme();

  // Relay messages for this stream. 'edge_backlogged' defers the SENDME the
  // DATA would trigger (tor waits while the edge's output buffer is full).
  StreamActions on_data(bool edge_backlogged = false);
  StreamActions on_sendme();
  StreamActions on_connected();
  StreamActions on_resolved();
  StreamActions on_end(cell::EndReason reason);
  // Any other command with this stream ID: dropped (tor drops a BEGIN for a
  // known stream, and unknown or unhandled commands).
  StreamActions on_other(cell::RelayCommand cmd);

 private:
  StreamMachine(StreamRole role, StreamKind kind, StreamState state, Options options);

  StreamActions send_end_now(cell::EndReason why, StreamActions a);
  StreamActions violation(StreamViolation v, ViolationScope scope, StreamActions a = {});
  StreamActions flow_violation(FlowError e);

  StreamRole role_;
  StreamKind kind_;
  StreamState state_;
  Options options_;
  PackageWindow package_{kStreamWindow};
  DeliverWindow deliver_{kStreamWindow};
  // What the peer may still send after our END (EndSent only).
  std::uint32_t data_allowance_ = 0;
  std::uint32_t sendme_allowance_ = 0;
  bool connected_allowed_ = false;
  bool resolved_allowed_ = false;
};

}  // namespace conflux::proto
