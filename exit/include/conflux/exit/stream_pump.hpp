#pragma once
// The exit's stream data path as a sans-I/O machine, shaped like
// proto::CircuitSwitch: events in, a list of actions out (take_actions()).
// It opens no socket and reads no clock; exit::ExitStreams owns the sockets,
// the lookups and the timers, and carries out the actions in order.
//
// Per stream it holds the protocol state (proto::StreamMachine: the package
// and deliver windows), the server -> client bytes read but not yet packaged
// and whether a read is in flight, and the client -> server queue with the
// SENDMEs deferred while that queue is backlogged. Per circuit it holds the
// round-robin order of the streams that have cells to send and what it last
// learnt about the circuit's writability.
//
// Rules, and why:
//   - A stream reads the server only when everything read before has been
//     packaged, and both its package window and the circuit are open
//     (backpressure: the server waits in its own socket buffer, not in ours).
//     A read is at most min(window, read_cells) cells, so it always fits the
//     stream window. The bytes of a read exist for the pump only once the read
//     has completed (server_read): nothing can be sent from a buffer a read
//     is still filling (issue 13: a shared buffer sent ~4 KB of zeros).
//   - Every DATA cell is preceded by a fresh answer to CheckWritable: the
//     circuit's window belongs to the runtime (a plain circuit's package
//     window, or a Conflux set's leg scheduler, which can close without any
//     DATA of ours), so the pump never assumes a cell fits.
//   - Streams with cells take turns one cell at a time, in FIFO order; a
//     stream that has to wait for the circuit keeps its place, so none
//     starves however many streams share the circuit.
//   - A stream SENDME for the client waits while more than kBacklogCells of
//     its bytes are not yet written to the server (tor-spec 7.4); all the
//     deferred ones go as soon as the queue drains below that.
//   - On a circuit with congestion control (prop 324) there are no stream
//     windows: no stream SENDMEs go out, the package window never stops a
//     read, and a stream SENDME from the client kills the circuit. Instead,
//     the client's XOFF stops the stream's reads and packaging until its
//     XON, and we send XOFF when more than cc_xoff_exit bytes have waited
//     for the server for 5 ms, then XON once they drained
//     (stream_xon_xoff.hpp). The rate an XON carries limits the stream's
//     reads of the server (a token bucket of one second at that rate, as
//     tor): a read waits (ReadLater) until a cell's worth is allowed.
//
// Streams are named by a StreamRef the pump hands out: after END a stream
// only flushes to its server, and the client may reuse its ID meanwhile.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "conflux/cell/relay_stream_msgs.hpp"
#include "conflux/exit/exit_config.hpp"
#include "conflux/proto/cc_params.hpp"
#include "conflux/proto/cc_rtt.hpp"
#include "conflux/proto/exit_interface.hpp"
#include "conflux/proto/stream_state.hpp"

namespace conflux::exit {

// A stream's name inside the pump, unique for the pump's life (never 0).
using StreamRef = std::uint64_t;

struct PumpLimits {
  // Server bytes read at once, in cells (each read is also capped by the
  // stream's package window).
  std::size_t read_cells = 8;
  // Client bytes waiting for the server (ExitLimits::max_upstream_bytes).
  std::size_t max_upstream_bytes = (proto::kStreamWindow.start + kBacklogCells) * kMaxDataLen;
  // After END: what the server still sends is read in pieces of this size and
  // discarded, until its FIN.
  std::size_t drain_bytes = 4096;
  // Streams on circuits with congestion control: XOFF at cc_xoff_exit bytes
  // waiting (tor's default 500 cells of 488 bytes). A client keeps sending
  // what is in flight until our XOFF reaches it (up to its cwnd), so the
  // hard bound is far above that limit; only a client ignoring XOFF gets
  // there, and tor would leave it to its OOM handler.
  proto::CcParams cc{};
  std::size_t max_upstream_bytes_cc = std::size_t{8} << 20;
  // XON drain rates are not measured while it says the clock is broken;
  // null: the pump's own, which nothing marks. Must outlive the pump.
  const proto::ClockHealth* clock_health = nullptr;
};

namespace pump {

// Read at most `max_bytes` from the stream's server, then report
// server_read / server_eof / server_error. `discard`: after END, the bytes
// will be thrown away (we only wait for the FIN).
struct StartRead {
  StreamRef ref;
  std::size_t max_bytes;
  bool discard;
};
// The stream's XON rate allows no read now: call read_allowed(ref, now)
// after `after` (a timer; the stream wants no read until then).
struct ReadLater {
  StreamRef ref;
  proto::CcClock::duration after;
};
// Answer with circuit_writable(circuit, out.can_send_data(circuit)).
struct CheckWritable {
  proto::CircuitHandle circuit;
};
// Send one DATA, SENDME or END cell on the stream's circuit. If the circuit
// is gone, tell the pump with circuit_closed (its streams are finished then).
struct Send {
  StreamRef ref;
  proto::CircuitHandle circuit;
  StreamId stream;
  cell::RelayMsg msg;
};
// Write every chunk, in order, to the server; report server_written for the
// bytes written (write_failed on error). One write at a time per stream.
struct WriteToServer {
  StreamRef ref;
  std::vector<std::vector<std::uint8_t>> chunks;
};
// END exchanged: the stream leaves its circuit's table; only socket work
// remains (the runtime bounds it with its linger timeout).
struct Detach {
  StreamRef ref;
};
// Everything for the server is written: shut down our sending side.
struct ShutdownSend {
  StreamRef ref;
};
// The stream is over: close its socket and forget it. The pump already has.
struct Finish {
  StreamRef ref;
};
// The client broke a rule that takes down the circuit: drop its streams,
// then close it with reason PROTOCOL. The pump has forgotten them already.
struct KillCircuit {
  proto::CircuitHandle circuit;
};
// For the log and the protocol_violations counter.
struct Violation {
  StreamRef ref;
  const char* what;
};

}  // namespace pump

using PumpAction = std::variant<pump::StartRead, pump::ReadLater, pump::CheckWritable, pump::Send, pump::WriteToServer,
                                pump::Detach, pump::ShutdownSend, pump::Finish, pump::KillCircuit,
                                pump::Violation>;

class StreamPump {
 public:
  explicit StreamPump(PumpLimits limits = {});
  ~StreamPump();
  StreamPump(StreamPump&&) noexcept;
  StreamPump& operator=(StreamPump&&) noexcept;
  StreamPump(const StreamPump&) = delete;
  StreamPump& operator=(const StreamPump&) = delete;

  // Client bytes waiting for (or being written to) servers: in all, and by
  // circuit with the time the oldest of them arrived (MaxMemInQueues).
  [[nodiscard]] std::size_t buffered_bytes() const noexcept;
  [[nodiscard]] std::vector<proto::BufferedCircuit> buffered_circuits() const;

  // New congestion-control parameters (a fresh consensus): the XON/XOFF
  // thresholds of streams opened from now on. A stream keeps those it was
  // opened with (tor reads its cc_xoff_* each time it checks them, so its
  // open streams change too).
  void set_cc_params(const proto::CcParams& params);

  // ---- lifecycle (the runtime connects, resolves and times out) -------------
  // A BEGIN, BEGIN_DIR or RESOLVE was accepted: the stream starts connecting.
  // `congestion_control`: the circuit negotiated it (prop 324), so the
  // stream sends no stream SENDMEs, its package window does not limit, and
  // a stream SENDME from the client is a circuit-level violation.
  StreamRef add(proto::CircuitHandle circuit, StreamId stream, proto::StreamKind kind,
                bool congestion_control = false);
  // The connection is up and CONNECTED has been sent: data flows both ways
  // (the client's optimistic DATA first).
  void opened(StreamRef ref);
  // Forget the stream without any action (the runtime closed it: connect
  // failure, RESOLVED answered, linger expired, circuit gone). Idempotent.
  void remove(StreamRef ref);
  // The circuit is gone: forget its state (its streams are removed one by one
  // by the runtime, which closes their sockets).
  void circuit_closed(proto::CircuitHandle circuit);

  // ---- from the client --------------------------------------------------------
  // `now` (the runtime's clock) times how fast the server drains what waits
  // for it, for XON/XOFF; streams without congestion control ignore it.
  void client_data(StreamRef ref, std::vector<std::uint8_t> data, proto::CcClock::time_point now);
  void client_sendme(StreamRef ref);
  // XOFF stops reading the server and packaging its data; XON resumes them.
  // Ignored on streams without congestion control, as tor does.
  void client_xoff(StreamRef ref);
  // `now` starts the XON rate's token bucket.
  void client_xon(StreamRef ref, const cell::XonMsg& msg, proto::CcClock::time_point now);
  void client_end(StreamRef ref, cell::EndReason reason = cell::EndReason::Misc);
  // CONNECTED or RESOLVED, which only travel towards the client.
  void client_wrong_direction(StreamRef ref, bool connected);

  // ---- from the runtime -------------------------------------------------------
  // The answer to a CheckWritable, given when the runtime carries it out:
  // after every action emitted before it, so that a yes counts every DATA
  // already on its way (a yes lasts for one DATA cell).
  void circuit_writable(proto::CircuitHandle circuit, bool writable);
  // The circuit's window may have opened (a SENDME, a Conflux leg freed):
  // the pump asks again with CheckWritable rather than take this as a yes,
  // since Sends it emitted earlier may not have been carried out yet.
  void circuit_reopened(proto::CircuitHandle circuit);
  // A StartRead completed with these bytes (not empty).
  void server_read(StreamRef ref, std::span<const std::uint8_t> bytes, proto::CcClock::time_point now);
  // A ReadLater's time has come.
  void read_allowed(StreamRef ref, proto::CcClock::time_point now);
  void server_eof(StreamRef ref);
  // Reading failed: END with `reason` while open.
  void server_error(StreamRef ref, cell::EndReason reason);
  // Bytes of the current WriteToServer are written (the whole write, or part
  // of it: the write goes on until all of it is reported).
  void server_written(StreamRef ref, std::size_t n, proto::CcClock::time_point now);
  void write_failed(StreamRef ref, cell::EndReason reason);

  // Actions produced since the last call, oldest first.
  [[nodiscard]] std::vector<PumpAction> take_actions();

  // ---- observers (tests, stats) -----------------------------------------------
  [[nodiscard]] bool knows(StreamRef ref) const;
  [[nodiscard]] std::size_t stream_count() const;
  [[nodiscard]] std::optional<proto::StreamState> state_of(StreamRef ref) const;
  [[nodiscard]] bool reading(StreamRef ref) const;
  // XOFFs sent for a stream with congestion control (nullopt: unknown, or fixed windows).
  [[nodiscard]] std::optional<std::uint64_t> xoffs_sent(StreamRef ref) const;
  // Everything that decides whether the stream moves, on one line (a stalled
  // stream's debug log): its stage, read and write state, XON/XOFF both
  // ways with the rates, and its circuit's turn state. Empty if unknown.
  [[nodiscard]] std::string describe(StreamRef ref) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace conflux::exit
