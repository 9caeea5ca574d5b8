#pragma once
// What the exit module is told (mode, policy, limits, timeouts, a log sink)
// and what it reports (ExitStats, plain numbers for metrics).
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "conflux/log/sink.hpp"
#include "conflux/cell/relay_addr.hpp"
#include "conflux/cell/relay_header.hpp"
#include "conflux/cell/relay_stream_msgs.hpp"
#include "conflux/proto/cc_params.hpp"
#include "conflux/proto/cc_rtt.hpp"
#include "conflux/proto/exit_policy.hpp"
#include "conflux/proto/flow_control.hpp"

namespace conflux::exit {

// A relay that is not an exit still gets BEGIN and RESOLVE cells (anyone can
// send them to any hop that is last on a circuit); it refuses them all.
enum class ExitMode : std::uint8_t { Exit, NotExit };

// The project-wide logging vocabulary (common/log/sink.hpp). Destination
// addresses and hostnames only ever appear at Debug.
using LogLevel = log::Severity;
using LogFn = log::Sink;

// DATA cells carry at most this many bytes.
inline constexpr std::size_t kMaxDataLen = cell::kRelayBodyMaxLen;  // 498

// A stream whose bytes for the server exceed this many cells' worth is
// "backlogged": its SENDMEs wait until the socket drains (tor-spec 7.4, "less
// than ten cell payloads remaining to be flushed").
inline constexpr std::size_t kBacklogCells = 10;

struct ExitLimits {
  std::size_t max_streams_per_circuit = 256;  // includes pending RESOLVEs
  std::size_t max_streams_total = 16384;      // includes streams still closing
  std::size_t max_pending_dns = 512;          // BEGIN and RESOLVE lookups in flight
  // Bytes from the client waiting for the server's socket. A client that
  // respects its stream window can have at most 500 cells unacknowledged, and
  // we only acknowledge while fewer than kBacklogCells are waiting, so an
  // honest client never exceeds (500 + 10) cells; more is a window overrun.
  std::size_t max_upstream_bytes = (proto::kStreamWindow.start + kBacklogCells) * kMaxDataLen;
  // Server bytes read in one go (each read is also capped by the stream
  // window), so a stalled circuit holds at most this much per stream.
  // 32 cells (15.9 KB): with 8, a bulk download cost the exit 300 reads and
  // 350 epoll_waits per MiB, with 32 about 100 and 175 (BENCHMARKS.md).
  std::size_t read_cells = 32;
};

struct ExitTimeouts {
  std::chrono::milliseconds dns{10'000};
  std::chrono::milliseconds connect{15'000};
  // After an END: how long we keep flushing to the server and waiting for its
  // FIN before the socket is closed anyway.
  std::chrono::milliseconds linger{10'000};
};

// One nameserver (tor's ServerDNSResolvConfFile "nameserver ADDR[:PORT]").
struct DnsServer {
  cell::RelayIpAddr addr = cell::Ipv4Bytes{127, 0, 0, 1};
  std::uint16_t port = 53;
  bool operator==(const DnsServer&) const = default;
};

// The exit's resolver (c-ares). A lookup is one query to c-ares, which tries
// each nameserver `attempts` times, `per_try` each (tor: exit_dns_timeout
// 1 s, exit_dns_num_attempts 2); ExitTimeouts::dns bounds the stream's wait.
struct DnsSettings {
  // Empty: c-ares reads /etc/resolv.conf itself (tor's default file).
  std::vector<DnsServer> servers;
  std::chrono::milliseconds per_try{1000};
  int attempts = 2;
  // tor's ServerDNSAllowNonRFC953Hostnames: without it a name with a
  // character outside [A-Za-z0-9.-_] is refused before any lookup.
  bool allow_non_rfc953 = false;
  // Answers kept for their (clipped, fuzzed) TTL; the soonest to expire
  // makes room. tor bounds its cache through the OOM handler instead.
  std::size_t cache_entries = 8192;
  // /etc/hosts first, then DNS (tor's evdns loads /etc/hosts too).
  bool hosts_file = true;
};

// Where BEGIN_DIR streams go: this relay's own DirPort listener, at an
// address the relay itself can reach (loopback when the DirPort listens on
// a wildcard address).
struct DirPortTarget {
  cell::RelayIpAddr addr = cell::Ipv4Bytes{127, 0, 0, 1};
  std::uint16_t port = 0;
};

struct ExitConfig {
  ExitMode mode = ExitMode::NotExit;
  // Built by the caller (proto::build_exit_policy); checked for every target.
  proto::ExitPolicy policy;
  // tor's IPv6Exit: without it, IPv6 destinations are refused and a BEGIN
  // that does not accept IPv4 gets END EXITPOLICY.
  bool ipv6_exit = false;
  ExitLimits limits;
  ExitTimeouts timeouts;
  DnsSettings dns;
  // TTLs we report. tor hands out only two values (clip_dns_ttl: 5 min below
  // 5 min, 1 hour from there) so that TTLs do not reveal cache state: names
  // get the clipped DNS TTL; failures dns_ttl, IP literals literal_ttl.
  std::uint32_t dns_ttl = 300;
  std::uint32_t literal_ttl = 3600;
  // BEGIN_DIR (tor-spec 6.2): a relay with a DirPort connects the stream to
  // it, on any circuit, exit or not, without the exit policy (the target is
  // our own listener, not the Internet), and answers an empty CONNECTED.
  // Unset: END NOTDIRECTORY.
  std::optional<DirPortTarget> dir_port;
  LogFn log;  // may be empty
  // XON/XOFF thresholds for streams on circuits with congestion control
  // (cc_xoff_exit, cc_xon_*): tor's defaults until the consensus is read.
  proto::CcParams congestion_control{};
  // The runtime's monotonic clock (the one it gives the circuit switch),
  // for the drain rates XON carries. Unset: time stands still.
  std::function<proto::CcClock::time_point()> now{};
  // The process's one ClockHealth (the circuit switch marks it); null: the
  // exit's own, which nothing marks. Must outlive the ExitStreams.
  const proto::ClockHealth* clock_health = nullptr;
};

// END reasons 0..14 by value; slot 0 also counts values tor-spec does not list.
inline constexpr std::size_t kEndReasonSlots = 15;

[[nodiscard]] constexpr std::size_t end_reason_slot(cell::EndReason r) noexcept {
  const auto v = static_cast<std::size_t>(r);
  return v < kEndReasonSlots ? v : 0;
}

struct ExitStats {
  // Gauges (now).
  std::uint64_t streams_pending = 0;   // resolving or connecting
  std::uint64_t streams_open = 0;      // connected, not yet ended
  std::uint64_t streams_closing = 0;   // END exchanged, socket still flushing
  std::uint64_t dns_pending = 0;
  // Counters (since start).
  std::uint64_t begins = 0;
  std::uint64_t begin_dirs = 0;        // BEGIN_DIR received (refused ones included)
  std::uint64_t streams_connected = 0;
  std::uint64_t resolves = 0;
  std::uint64_t dns_failures = 0;      // lookups that failed or timed out
  std::uint64_t dns_timeouts = 0;      // of those: the stream's wait ran out (END TIMEOUT)
  std::uint64_t dns_cache_hits = 0;    // answered from the cache
  std::uint64_t dns_refused_full = 0;  // refused: max_pending_dns queries already in flight
  std::uint64_t bytes_to_servers = 0;  // client DATA written to sockets
  std::uint64_t bytes_to_clients = 0;  // socket bytes sent as DATA
  std::uint64_t ends_received = 0;
  std::array<std::uint64_t, kEndReasonSlots> ends_sent{};  // by end_reason_slot()
  std::uint64_t cells_dropped = 0;        // unknown stream, stream 0, ignored commands
  std::uint64_t protocol_violations = 0;  // stream or circuit level
  std::uint64_t circuits_killed = 0;      // closed by us with reason PROTOCOL
  // XON/XOFF on streams of circuits with congestion control.
  std::uint64_t xoffs_sent = 0;
  std::uint64_t xons_sent = 0;
  std::uint64_t xoffs_received = 0;  // for a known stream (obeyed or ignored by the pump)
  std::uint64_t xons_received = 0;

  [[nodiscard]] std::uint64_t ends_sent_for(cell::EndReason r) const noexcept {
    return ends_sent[end_reason_slot(r)];
  }
};

}  // namespace conflux::exit
