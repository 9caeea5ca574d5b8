#pragma once
// The network conflux-net starts, as the user writes it in a JSON spec file
// (docs/CONFLUX-NET.md). Every field is optional: a missing one keeps the
// default network's value, so `{"proxies": []}` is the default network
// without a proxy. Unknown fields are errors (a typo must not be ignored).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/bytes/result.hpp"

namespace conflux::netspec {

struct BridgeSpec {
  std::string name;            // its nickname: 1-19 letters and digits
  std::string bandwidth_rate;  // torrc BandwidthRate value ("100 KBytes"); empty = the relay's default
  std::string transport{};     // "" (plain) or "obfs4": behind obfs4proxy (ServerTransportPlugin)
  bool operator==(const BridgeSpec&) const = default;
};

struct ProxySpec {
  std::string name;          // its directory under DIR: letters, digits, '-'
  bool start = true;         // false: only its torrc is written, for the user to start
  bool use_bridges = false;  // UseBridges 1 with a Bridge line for every bridge
  bool conflux = true;       // ConfluxEnabled
  // Extra torrc lines, after conflux-net's own ("Log info file PATH": a test's
  // second, more detailed log beside notice.log).
  std::vector<std::string> options{};
  bool operator==(const ProxySpec&) const = default;
};

struct FileSpec {
  std::string name;  // served as /NAME
  std::uint64_t size = 0;
  bool operator==(const FileSpec&) const = default;
};

// One host's access link in an emulated network (docs/CONFLUX-NET.md,
// "Emulated networks"): the same in both directions.
struct HostLinkSpec {
  double latency_ms = 0;  // one way, 0 to 10000
  double jitter_ms = 0;   // each packet's delay is latency +- U[0, jitter] (never reordered), 0 to 10000
  double loss = 0;        // probability in [0, 0.5] that a packet is dropped, each direction
  std::string rate;       // per second, torrc units ("1 MByte"); empty = unlimited
  bool operator==(const HostLinkSpec&) const = default;
};

// relay_bandwidth_rate's value for "each relay's own link rate".
inline constexpr std::string_view kLinkRate = "link";
// IPv4's smallest MTU every host must take, and what a TUN device and the
// router's read buffer (64 KiB) take.
inline constexpr unsigned kMinMtu = 576;
inline constexpr unsigned kMaxMtu = 65535;
// Empty, or what the kernel names an algorithm by (TCP_CA_NAME_MAX 16).
[[nodiscard]] inline bool is_congestion_control_name(std::string_view s) noexcept {
  if (s.size() > 15) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

// Present: every process runs in its own network namespace with its own
// address, joined to the others by `conflux-net router`; absent: everything on
// 127.0.0.1 (the default).
struct EmulationSpec {
  // A private /24 ("10.77.0.0/24"): processes get .1, .2, ... in start order,
  // the machine itself .254 (on a link without delay), so `up`, curl and
  // scripts reach the network from outside it.
  std::string subnet = "10.77.0.0/24";
  std::uint64_t seed = 1;  // the links' loss and jitter draws
  // Every device's MTU. Jumbo frames cut the router's packets (and the
  // kernel's per-packet work it carries) for big runs; a lost packet is then
  // a larger loss.
  unsigned mtu = 1500;
  // Every host's TCP congestion control (net.ipv4.tcp_congestion_control in
  // its namespace); empty = what a new namespace gets on this machine (its
  // default). Only algorithms in the machine's
  // tcp_allowed_congestion_control can be set in a namespace.
  std::string tcp_congestion_control;
  HostLinkSpec defaults;   // JSON "default": every process's link
  // By process name (auth1, relay1, exit1, fileserver, a bridge's or proxy's
  // name): fields given here replace the default's.
  std::map<std::string, HostLinkSpec> hosts;
  bool operator==(const EmulationSpec&) const = default;
};

// The authorities' bandwidth file (tor's V3BandwidthsFile): the consensus
// weights of the relays it names are these measurements instead of what
// each relay advertises (ours min(BandwidthRate, 10 MB/s), stock tor's its
// observed bandwidth), so one rule weighs every implementation's relays.
// JSON: "link" (an emulated network: every authority's, relay's and exit's
// weight is its own link rate) or {"relay1": "2 MBytes", ...} (those relays;
// any other is unmeasured and, as in tor, weighs at most 20 KB/s).
struct MeasuredBandwidthsSpec {
  bool link = false;
  std::map<std::string, std::string> rates;  // by name, torrc units per second
  bool operator==(const MeasuredBandwidthsSpec&) const = default;
};

struct NetSpec {
  unsigned authorities = 1;
  unsigned relays = 6;  // how many relays, exits included
  unsigned exits = 2;   // how many of them are exits
  // Empty = the relay's default; kLinkRate: each authority's, relay's and
  // exit's own emulated link rate (none where its link has none).
  std::string relay_bandwidth_rate;
  unsigned consensus_interval = 10;  // seconds (ConsensusInterval; 10 is the smallest)
  // Extra exit policy lines ("accept *:443"), after the file server's accept
  // and before the final "reject *:*".
  std::vector<std::string> exit_policy;
  // Extra torrc lines for every relay, exit, bridge and authority
  // ("CircuitPriorityHalflife 0"): experiments that compare relay options.
  std::vector<std::string> relay_options;
  std::vector<BridgeSpec> bridges;
  std::vector<ProxySpec> proxies;
  std::vector<FileSpec> files;
  std::uint64_t file_seed = 1;  // test-file contents depend only on seed and name
  // The file server listens on 127.0.0.1 through 127.0.0.N, all on the same
  // port: N origins for browser tests (the exits accept that port for any
  // address, and every 127.0.0.0/8 address is loopback).
  unsigned file_origins = 1;
  // The pluggable transport program for "obfs4" bridges (and their clients).
  std::string obfs4proxy = "/usr/bin/obfs4proxy";
  std::optional<EmulationSpec> emulation;
  // Which program runs a relay, by its name ("relay2", "exit1"): "conflux"
  // (ours, conflux-relay: the default for every name not listed) or "tor"
  // (Debian's stock tor, at `tor`), so one network can mix the two
  // implementations. Relays, exits and proxies (a stock tor proxy is a tor
  // client: SocksPort and ControlPort, tor's Conflux when `conflux`).
  std::map<std::string, std::string> implementation;
  std::string tor = "/usr/sbin/tor";  // the stock tor program
  // The relays (authorities, relays, exits, by name) the authorities vote
  // Guard for, and no other (tor's TestingDirAuthVoteGuard with ...IsStrict
  // 1): an experiment's guard candidates, whatever each implementation's
  // relays advertise. Empty: the authorities' own rule.
  std::vector<std::string> guard_relays;
  // "" or a severity ("info", "debug"): every process also logs from it up
  // to DIR/NAME/SEVERITY.log, beside notice.log (why a download stalled).
  std::string log_detail;
  std::optional<MeasuredBandwidthsSpec> measured_bandwidths;  // absent: no bandwidth file
  bool operator==(const NetSpec&) const = default;
};

// The default network: 1 authority, 6 relays of which 2 exits, a
// bridge at 100 KiB/s and one at 1 MiB/s, one proxy without bridges (and one
// with bridges, written but not started), files of 320 KiB, 1, 5 and 50 MiB.
[[nodiscard]] NetSpec default_spec();

// Limits that keep a mistake from starting hundreds of processes or writing
// gigabytes.
inline constexpr unsigned kMaxAuthorities = 5;
// 128 relays: the 100-relay network of issue 21 with room to spare. An
// emulated network gives every process an address of one /24 (.1 up; the
// machine is .254), so the file server and every process must fit in 253.
inline constexpr unsigned kMaxRelays = 128;
inline constexpr unsigned kMaxBridges = 16;
inline constexpr unsigned kMaxProxies = 8;
static_assert(1 + kMaxAuthorities + kMaxRelays + kMaxBridges + kMaxProxies <= 253,
              "an emulated network's hosts must fit its /24");
inline constexpr std::size_t kMaxFiles = 32;
inline constexpr unsigned kMaxFileOrigins = 8;
inline constexpr std::uint64_t kMaxFileSize = 1ULL << 30;
inline constexpr std::uint64_t kMaxTotalFileSize = 2ULL << 30;
inline constexpr std::size_t kMaxSpecSize = 1 << 20;

struct SpecError {
  unsigned line = 0;    // 1-based line in the spec text; 0 when unknown
  std::string pointer;  // JSON pointer of the field ("/bridges/1/bandwidth_rate"), empty for syntax errors
  std::string message;
  // "FILE:LINE: /pointer: message".
  [[nodiscard]] std::string to_string(std::string_view file) const;
  bool operator==(const SpecError&) const = default;
};

// The network address of an emulation subnet ("10.77.0.0/24": a /24 in
// 10/8, 172.16/12 or 192.168/16, so emulated traffic can only ever name
// addresses private to this machine), host byte order; nullopt otherwise.
[[nodiscard]] std::optional<std::uint32_t> parse_subnet24(std::string_view subnet);
// "10.77.0.5" for a host byte order address.
[[nodiscard]] std::string ipv4_text(std::uint32_t address);

// Parses and validates a spec; the first problem found is the error.
[[nodiscard]] Result<NetSpec, SpecError> parse_spec(std::string_view json_text);

// Checks a spec built in code (parse_spec runs the same checks).
[[nodiscard]] Result<NetSpec, SpecError> validate_spec(NetSpec spec);

// Whether the spec runs the relay or proxy `name` on stock tor (implementation "tor").
[[nodiscard]] bool runs_stock_tor(const NetSpec& spec, std::string_view name);

// The relays a consensus lists, by name: auth1.., relay1.., exit1.. (bridges are in none).
[[nodiscard]] std::vector<std::string> listed_relay_names(const NetSpec& spec);

// The spec as JSON with every field written out (DIR/spec.json, --print-spec).
[[nodiscard]] std::string encode_spec(const NetSpec& spec);

}  // namespace conflux::netspec
