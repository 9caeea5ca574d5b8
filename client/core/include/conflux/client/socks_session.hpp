#pragma once
// One SOCKS client connection, from the handshake to the last byte: the
// request is answered with a stream on a carrier the pool picks (a circuit,
// or a Conflux set), retried on
// another exit when the first refuses, and then bytes flow both ways under
// the stream's and the circuit's windows. Every wait has a deadline, so a
// client that stalls (or sends one byte a second) costs one socket until it
// times out, and nothing else.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "conflux/client/client_stream.hpp"
#include "conflux/client/proxy_counters.hpp"
#include "conflux/client/stream_pool.hpp"
#include "conflux/net/clock.hpp"
#include "conflux/net/log_sink.hpp"

namespace conflux::client {

// How a SocksPort isolates streams (tor's Isolate* port flags).
struct SocksIsolation {
  std::size_t listener = 0;  // streams from different SocksPorts never share a circuit
  bool socks_auth = true;    // IsolateSOCKSAuth
  bool dest_port = false;    // IsolateDestPort
  bool dest_addr = false;    // IsolateDestAddr
};

struct SocksLimits {
  std::chrono::milliseconds handshake_timeout{30000};  // the whole SOCKS request
  std::chrono::milliseconds socks_timeout{120000};     // SocksTimeout: request to CONNECTED
  std::chrono::milliseconds attempt_timeout{15000};    // one BEGIN before trying another circuit
  unsigned max_attempts = 4;
  std::size_t read_chunk = 16 * 1024;
};

// A stream as a controller sees it (control-spec STREAM events and
// stream-status): NEW or NEWRESOLVE, SENTCONNECT or SENTRESOLVE on a
// circuit, DETACHED (tried again elsewhere), SUCCEEDED, FAILED, CLOSED.
struct StreamReport {
  std::uint64_t id = 0;
  std::string_view status;
  std::uint64_t circuit = 0;  // the carrier's control_circuit_id(); 0: none
  std::string target;         // "ADDRESS:PORT"
  std::string_view reason;    // tor's REASON= for DETACHED, FAILED and CLOSED; empty: none
  std::weak_ptr<const ClientStream> stream;  // from SUCCEEDED on: its byte counts (STREAM_BW)
};

struct SocksContext {
  StreamPool* pool;  // for new streams (SETCONF ConfluxEnabled changes it); each keeps its own
  const net::Clock& clock;
  ProxyCounters& counters;
  net::LogSink log;
  SocksLimits limits;
  std::function<void(const StreamReport&)> on_stream;  // the ControlPort's, when there is one
  std::uint64_t next_stream_id = 1;
  // The proxy's DisableNetwork: while true, a stream not yet answered gets
  // tor's answer (a SOCKS general failure, STREAM FAILED and CLOSED with
  // REASON=HIBERNATING) instead of another attempt. Null: never.
  const bool* network_disabled = nullptr;
  // PerClientGuards: whether the stream's client (its SOCKS username up to
  // the first '/') may have guards; false refuses the stream (a general
  // failure). Null: the option is off, every stream uses the process's guards.
  std::function<bool(std::string_view client)> admit_guard_client{};
};

net::awaitable<void> run_socks_session(net::tcp::socket socket, SocksContext& ctx, SocksIsolation isolation);

}  // namespace conflux::client
