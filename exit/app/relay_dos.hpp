#pragma once
// conflux-relay's DoS defences and MaxMemInQueues: the torrc options and the
// consensus parameters turned into what the runtime enforces
// (proto::DosParams, a byte limit), and their metrics under tor's names
// (tor_relay_dos_total, tor_relay_load_oom_bytes_total), so tor's
// dashboards read them.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/config/relay_options.hpp"
#include "conflux/dir/consensus.hpp"
#include "conflux/metrics/snapshot.hpp"
#include "conflux/net/channel_manager.hpp"
#include "conflux/proto/dos_guard.hpp"

namespace conflux::relay {

// The DoS* options, which SIGHUP and SETCONF apply to a running relay.
inline constexpr std::array<std::string_view, 16> kDosOptionNames{
    "DoSCircuitCreationEnabled",       "DoSCircuitCreationMinConnections", "DoSCircuitCreationRate",
    "DoSCircuitCreationBurst",         "DoSCircuitCreationDefenseType",    "DoSCircuitCreationDefenseTimePeriod",
    "DoSConnectionEnabled",            "DoSConnectionMaxConcurrentCount",  "DoSConnectionDefenseType",
    "DoSConnectionConnectRate",        "DoSConnectionConnectBurst",        "DoSConnectionConnectDefenseTimePeriod",
    "DoSStreamCreationEnabled",        "DoSStreamCreationRate",            "DoSStreamCreationBurst",
    "DoSStreamCreationDefenseType"};

[[nodiscard]] proto::DosOptions dos_options(const config::RelayOptions& o);
// The torrc's DoS* over `consensus` (the consensus's parameters with
// OverrideConsensusParams on top; empty before the first consensus).
[[nodiscard]] proto::DosParams relay_dos_params(const config::RelayOptions& o,
                                                const std::map<std::string, std::int32_t>& consensus);
// MaxMemInQueues in bytes (tor's rule when 0, from this host's RAM); `log`:
// say what was chosen, as tor does at start.
[[nodiscard]] std::uint64_t relay_max_mem_in_queues(const config::RelayOptions& o, bool log);
// The addresses of the consensus's relays: never counted as DoS clients.
[[nodiscard]] std::vector<proto::DosAddress> relay_addresses(const dir::Consensus& c);
// One line for the log: which defences are on, with their main numbers.
[[nodiscard]] std::string dos_summary(const proto::DosParams& p);

// tor's heartbeat line for its DoS defences ("Heartbeat: DoS mitigation since
// startup: ..."), with what MaxMemInQueues closed.
[[nodiscard]] std::string dos_heartbeat(const proto::DosParams& p, const net::RuntimeCounters& c);

void collect_dos_metrics(metrics::Snapshot& out, const net::RuntimeCounters& c);

}  // namespace conflux::relay
