#pragma once
// What the GUI reads from the proxy's control port, parsed: the bootstrap
// phase (GETINFO status/bootstrap-phase, STATUS_CLIENT events), Conflux legs
// (GETINFO conflux/sets), circuits' paths (GETINFO circuit-status) and BW
// events. docs/CONTROL.md describes each format. No Qt here.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace conflux::gui {

struct BootstrapPhase {
  int progress = 0;
  std::string tag;
  std::string summary;
  std::string warning;  // tor's WARNING=, when the proxy gives one
  bool operator==(const BootstrapPhase&) const = default;
};
// "NOTICE BOOTSTRAP PROGRESS=N TAG=t SUMMARY=\"...\"" (a STATUS_CLIENT
// event's body after its name, or the GETINFO value); nullopt when it is not one.
[[nodiscard]] std::optional<BootstrapPhase> parse_bootstrap_phase(std::string_view text);

struct ConfluxLeg {
  std::uint32_t set = 0;
  std::string state;  // OPEN, LINKING
  std::uint32_t circuit = 0;
  double srtt_ms = 0;
  double min_rtt_ms = 0;
  double share = 0;
  std::uint64_t read = 0;     // bytes its circuit read so far (READ=, 509 per cell)
  std::uint64_t written = 0;  // and wrote (WRITTEN=)
  bool operator==(const ConfluxLeg&) const = default;
};
// GETINFO conflux/sets: one leg per line; lines of sets without legs are skipped.
[[nodiscard]] std::vector<ConfluxLeg> parse_conflux_sets(std::string_view text);

// "CONFLUX_LEG SET=N CIRC=ID STATUS=LINKED|BW|CLOSED RTT_MS=x READ=n
// WRITTEN=n" (the event's body); nullopt when it is not one.
struct LegEvent {
  std::string status;
  ConfluxLeg leg;  // set, circuit, srtt_ms, read, written
};
[[nodiscard]] std::optional<LegEvent> parse_conflux_leg_event(std::string_view text);

// GETINFO circuit-status: circuit id -> the nicknames of its hops so far
// ("$FP~name" gives name; a hop without a fingerprint is its name alone).
[[nodiscard]] std::map<std::uint32_t, std::vector<std::string>> parse_circuit_paths(std::string_view text);

// A CIRC event's body ("CIRC ID STATUS [PATH] ..."): its id, status and hops.
struct CircEvent {
  std::uint32_t circuit = 0;
  std::string status;
  std::vector<std::string> hops;
};
[[nodiscard]] std::optional<CircEvent> parse_circ_event(std::string_view text);

// "CONFLUX_BRIDGE ADDR=A:P STATUS=OK|FAILED MS=n [REASON=\"...\"]" (the
// proxy's answer for one bridge to CONFLUX_TESTBRIDGES).
struct BridgeTest {
  std::string address;
  bool ok = false;
  std::uint64_t ms = 0;
  std::string reason;
};
[[nodiscard]] std::optional<BridgeTest> parse_bridge_test_event(std::string_view text);

struct BandwidthSample {
  std::uint64_t read = 0;
  std::uint64_t written = 0;
};
// "BW READ WRITTEN".
[[nodiscard]] std::optional<BandwidthSample> parse_bw_event(std::string_view text);

// "\"127.0.0.1:9050\" ..." (GETINFO net/listeners/socks): the first address.
[[nodiscard]] std::string first_socks_listener(std::string_view text);

// The proxy's notice "Bridge NICK (ADDR:PORT): descriptor fetched and
// verified.": {ADDR:PORT, NICK}.
[[nodiscard]] std::optional<std::pair<std::string, std::string>> parse_bridge_descriptor_notice(std::string_view line);

}  // namespace conflux::gui
