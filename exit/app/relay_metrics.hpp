#pragma once
// What conflux-relay's MetricsPort exposes: the channel manager's, the
// exit module's and the Conflux join point's counters as conflux_relay_* families (docs/METRICS.md lists
// them). A collector: it copies the counters at each scrape, so nothing on
// the relay's hot paths knows about metrics.
#include "conflux/exit/conflux_join.hpp"
#include "conflux/exit/exit_config.hpp"
#include "conflux/metrics/snapshot.hpp"
#include "conflux/net/channel_manager.hpp"

namespace conflux::relay {

void collect_relay_metrics(metrics::Snapshot& out, const net::RuntimeCounters& c, const exit::ExitStats& e,
                           const exit::ConfluxJoinStats& j);
// The socket scheduler's families (conflux_relay_sched_*).
void collect_scheduler_metrics(metrics::Snapshot& out, const net::Scheduler& s);

}  // namespace conflux::relay
