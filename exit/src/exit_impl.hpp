#pragma once
// Private: the exit module's state and the Asio side of its streams. Split
// over exit_streams.cpp (relay messages in, circuits, limits), exit_dns.cpp
// (lookups for BEGIN and RESOLVE), exit_stream_io.cpp (connect, socket reads
// and writes) and exit_stream_run.cpp (carrying out the StreamPump's actions).
// The data path itself (windows, buffers, turns, closing) is the sans-I/O
// StreamPump (stream_pump.hpp).
//
// Lifetime rules. Every stream is a shared_ptr held by its circuit's table
// (attached) or, once END was exchanged and only socket work remains, by the
// closing set. Asio handlers hold a shared_ptr too and start with
// `if (s->closed) return;`: a finished stream never touches the Impl, which
// is how the Impl can be destroyed with handlers still queued. Functions
// take StreamPtr by value because sending a cell can drop the whole circuit
// (and with it the table entry a reference would point into).
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "conflux/exit/exit_config.hpp"
#include "conflux/exit/exit_rules.hpp"
#include "conflux/exit/exit_streams.hpp"
#include "conflux/exit/stream_pump.hpp"
#include "conflux/net/asio.hpp"
#include "conflux/proto/stream_state.hpp"
#include "dns_resolver.hpp"

namespace conflux::exit {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// The socket's life, alongside the protocol state in StreamMachine.
enum class Phase : std::uint8_t {
  Resolving,   // BEGIN: DNS lookup in flight (also: a RESOLVE request)
  Connecting,  // TCP connect in flight
  Open,        // data both ways
  Closing,     // END exchanged: flush to the server, shut down, await its FIN
};

struct Stream {
  Stream(asio::io_context& io, proto::CircuitHandle c, StreamId s, proto::StreamKind kind, StreamRef r);

  proto::CircuitHandle circuit;
  StreamId id;
  StreamRef ref;      // its name in the StreamPump, which holds its data path
  bool resolve_only;  // a RESOLVE request: no socket, answered with RESOLVED
  bool dir;           // BEGIN_DIR: to our own DirPort, CONNECTED without address
  Phase phase = Phase::Resolving;
  bool attached = true;   // in its circuit's table; false once in the closing set
  bool closed = false;    // finished: handlers must not touch the Impl
  bool connected = false; // counted in streams_open
  bool dns_counted = false;

  tcp::socket socket;
  asio::steady_timer timer;

  std::uint16_t port = 0;
  std::uint32_t flags = 0;
  cell::RelayIpAddr addr;
  std::uint32_t ttl = 0;

  // The memory the socket operations in flight work on, and nothing else:
  // the pump gets a read's bytes only once it completed, and gives a write
  // its chunks for good (issue 13: a buffer shared with the sending side
  // went out before the read had filled it).
  std::vector<std::uint8_t> read_buf;
  std::vector<std::vector<std::uint8_t>> write_chunks;

  // When bytes last moved (a read, a write, a DATA cell sent), and when the
  // stall check last logged this stream.
  proto::CcClock::time_point last_progress{};
  proto::CcClock::time_point last_stall_log{};
};
using StreamPtr = std::shared_ptr<Stream>;

struct ExitStreams::Impl {
  Impl(asio::io_context& io, proto::CircuitOutput& out, ExitConfig cfg);
  ~Impl();

  struct Circuit {
    std::unordered_map<StreamId, StreamPtr> streams;
  };

  asio::io_context& io;
  proto::CircuitOutput& out;
  ExitConfig cfg;
  ExitStats counters;  // gauges are filled in by stats()
  std::unordered_map<proto::CircuitHandle, Circuit> circuits;
  std::unordered_set<StreamPtr> closing;
  std::size_t total = 0;       // every live Stream
  std::size_t pending = 0;     // resolving + connecting
  std::size_t open = 0;        // connected, attached
  std::size_t dns_pending = 0;  // streams waiting for a lookup
  DnsResolver dns;
  // The data path of every live stream; its actions run in run().
  StreamPump pump;
  std::unordered_map<StreamRef, StreamPtr> by_ref;  // every live Stream
  bool running = false;                             // run() is draining the pump
  proto::CcClock::time_point last_stall_check{};

  // ---- exit_streams.cpp: messages in, circuits -------------------------------
  void on_message(proto::CircuitHandle c, StreamId id, cell::RelayMsg msg);
  void on_begin(proto::CircuitHandle c, StreamId id, const cell::BeginMsg& m);
  void on_begin_dir(proto::CircuitHandle c, StreamId id);
  void on_resolve(proto::CircuitHandle c, StreamId id, std::string name);
  void on_data(proto::CircuitHandle c, StreamId id, std::vector<std::uint8_t> data);
  void on_end(proto::CircuitHandle c, StreamId id, cell::EndReason reason);
  void on_sendme(proto::CircuitHandle c, StreamId id);
  void on_xon_xoff(proto::CircuitHandle c, StreamId id, std::optional<cell::XonMsg> xon);
  void on_wrong_direction(proto::CircuitHandle c, StreamId id, bool connected);
  void on_writable(proto::CircuitHandle c);

  [[nodiscard]] StreamPtr find(proto::CircuitHandle c, StreamId id) const;
  [[nodiscard]] std::size_t attached_on(proto::CircuitHandle c) const;
  // A refusal for a stream we never created.
  void refuse(proto::CircuitHandle c, StreamId id, cell::EndReason reason,
              std::optional<cell::RelayAddrTtl> addr = std::nullopt);
  StreamPtr add_stream(proto::CircuitHandle c, StreamId id, proto::StreamKind kind);

  // Sends on the stream's circuit; false if the circuit is gone (its streams
  // are dropped then, this one included).
  bool send(const StreamPtr& s, const cell::RelayMsg& msg);
  bool send_end(const StreamPtr& s, cell::EndReason reason, std::optional<cell::RelayAddrTtl> addr = std::nullopt);
  // The client broke the protocol: drop the circuit's streams, then close it.
  void kill_circuit(proto::CircuitHandle c);
  // The circuit is gone: close its streams' sockets, send nothing.
  void drop_circuit(proto::CircuitHandle c);
  // Removes the stream from its circuit's table (and an empty table).
  void unlink(const StreamPtr& s);
  // Out of the circuit's table into the closing set.
  void detach(const StreamPtr& s);
  // Closes everything the stream holds and forgets it.
  void finish(const StreamPtr& s);
  // The connect or lookup failed: END with 'reason', then forget the stream.
  void fail(const StreamPtr& s, cell::EndReason reason, std::optional<cell::RelayAddrTtl> addr = std::nullopt);
  void log(LogLevel level, std::string_view text) const;
  // The runtime's clock (ExitConfig::now), for XON/XOFF drain rates.
  [[nodiscard]] proto::CcClock::time_point now() const;
  // One timer per stream serves each phase in turn; a handler whose phase
  // has passed does nothing.
  void arm_timer(const StreamPtr& s, std::chrono::milliseconds after, void (Impl::*on_expire)(StreamPtr));

  // ---- exit_dns.cpp ----------------------------------------------------------
  void start_lookup(StreamPtr s, const std::string& host);
  // Asks the resolver for a BEGIN's name or a RESOLVE's (forward or PTR);
  // false when max_pending_dns queries are in flight.
  bool ask(const StreamPtr& s, const std::string& name, const std::optional<cell::RelayIpAddr>& reverse);
  void on_answer(StreamPtr s, const DnsAnswer& a);
  void start_resolve_request(StreamPtr s, const std::string& name);
  void answer_resolve(StreamPtr s, const cell::ResolvedMsg& answer);
  void dns_done(const StreamPtr& s);
  void dns_timed_out(StreamPtr s);
  // Exact policy check, then connect; END EXITPOLICY with the address if refused.
  void connect_checked(StreamPtr s);

  // ---- exit_stream_io.cpp ----------------------------------------------------
  void start_connect(StreamPtr s);
  void on_connected(StreamPtr s, const boost::system::error_code& ec);
  void connect_timed_out(StreamPtr s);
  void start_read(StreamPtr s, std::size_t max_bytes);
  // The XON rate's ReadLater: the stream's timer (free while it is open).
  void read_later(const StreamPtr& s, proto::CcClock::duration after);
  void read_time_came(StreamPtr s);
  void on_read(StreamPtr s, const boost::system::error_code& ec, std::size_t n);
  void start_write(StreamPtr s, std::vector<std::vector<std::uint8_t>> chunks);
  void on_write(StreamPtr s, const boost::system::error_code& ec, std::size_t n);
  // END exchanged while open: out of the circuit's table, the pump keeps
  // flushing to the server and waits (bounded by the linger timeout) for its FIN.
  void detach_closing(StreamPtr s);
  void linger_expired(StreamPtr s);

  // ---- exit_stream_run.cpp: the pump's actions --------------------------------
  // Carries out what the pump asks, in order, until it asks nothing more.
  void run();
  void execute(PumpAction& action);
  // Debug log of every open stream whose bytes have not moved for
  // kStallReportAfter (issue 14): looked at from run(), so only while the
  // exit has other work, at most once per kStallCheckEvery.
  void report_stalls();
  [[nodiscard]] StreamPtr live(StreamRef ref) const;
};

// std::visit over the pump's actions and the circuit's messages.
template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

// The END reason for an Asio error from connect, read or write.
[[nodiscard]] cell::EndReason end_reason_for(const boost::system::error_code& ec) noexcept;
[[nodiscard]] tcp::endpoint to_endpoint(const cell::RelayIpAddr& addr, std::uint16_t port);

}  // namespace conflux::exit
