#pragma once
// conflux-relay's congestion-control families (conflux_relay_cc_*, docs/METRICS.md):
// the Vegas state of the circuits on which this relay packages DATA (it is
// their exit and answered the client's request), and the exit streams'
// XON/XOFF. Per-circuit series only for the kCcLargestCircuits circuits with
// the largest cwnd, so a scrape's size does not grow with the circuits.
#include <cstddef>

#include "conflux/exit/exit_config.hpp"
#include "conflux/metrics/snapshot.hpp"
#include "conflux/net/channel_manager.hpp"

namespace conflux::relay {

inline constexpr std::size_t kCcLargestCircuits = 8;

void collect_cc_metrics(metrics::Snapshot& out, const net::ChannelManager& manager, const net::RuntimeCounters& c,
                        const exit::ExitStats& e);

}  // namespace conflux::relay
