#include "conflux/client/proxy_metrics.hpp"

#include "conflux/metrics/snapshot.hpp"

namespace conflux::client {

namespace {

double seconds(proto::RttDuration d) { return static_cast<double>(d.count()) / 1e6; }

const char* exit_kind_label(ConfluxTunnel::ExitKind k) {
  switch (k) {
    case ConfluxTunnel::ExitKind::Resumes: return "resumes";
    case ConfluxTunnel::ExitKind::Tor: return "tor";
    case ConfluxTunnel::ExitKind::Unknown: break;
  }
  return "unknown";
}

// Sets, legs, and per live leg what the scheduler sees (CONFLUX.md, "The
// proxy's sets"). Labels are the set's and the leg's numbers from the log.
void render_conflux(metrics::Snapshot& s, const ConfluxPool& pool) {
  s.gauge("conflux_proxy_conflux_sets", "Conflux sets by state", pool.open_count(), {{"state", "open"}});
  s.gauge("conflux_proxy_conflux_sets", "Conflux sets by state", pool.linking_count(), {{"state", "linking"}});
  s.gauge("conflux_proxy_conflux_sets", "Conflux sets by state", pool.clean_count(), {{"state", "clean"}});
  const auto st = pool.stats();
  const char* help_sets = "Conflux set events since start";
  s.counter("conflux_proxy_conflux_set_events_total", help_sets, st.sets_launched, {{"event", "launched"}});
  s.counter("conflux_proxy_conflux_set_events_total", help_sets, st.sets_closed, {{"event", "closed"}});
  s.counter("conflux_proxy_conflux_set_events_total", help_sets, st.sets_shed, {{"event", "shed"}});
  s.counter("conflux_proxy_conflux_set_events_total", help_sets, st.sets_evicted, {{"event", "evicted"}});
  s.counter("conflux_proxy_conflux_set_events_total", help_sets, st.sets_expired, {{"event", "expired"}});
  s.gauge("conflux_proxy_conflux_sets_limit", "Conflux sets alive at once, at most", pool.max_sets());
  s.gauge("conflux_proxy_conflux_set_wait_seconds", "The longest a stream waits for a set before a single circuit",
          pool.set_wait().count());
  s.gauge("conflux_proxy_streams_waiting", "Streams waiting now for a circuit or a set", pool.waiting_count(),
          {{"for", "set"}});
  s.counter("conflux_proxy_conflux_streams_fallback_total", "Streams that fell back from a set to a single circuit",
            st.streams_fell_back);
  s.counter("conflux_proxy_conflux_legs_launched_total", "Conflux leg circuits launched", st.legs_launched);
  s.counter("conflux_proxy_conflux_legs_linked_total", "Conflux legs linked (LINKED accepted)", st.legs_linked);
  s.counter("conflux_proxy_conflux_legs_lost_total", "Linked Conflux legs that closed (then relinked)",
            st.legs_lost);
  s.counter("conflux_proxy_conflux_legs_failed_total", "Conflux legs that closed before linking", st.legs_failed);
  s.gauge("conflux_proxy_conflux_reorder_budget_bytes", "Out-of-order bytes held by all sets",
          pool.budget().used_bytes());
  for (const ConfluxTunnel* t : pool.sets()) {
    const proto::ConfluxSet* set = t->set();
    if (set == nullptr) continue;
    const std::string set_label = std::to_string(t->serial());
    const auto& ss = set->stats();
    s.gauge("conflux_proxy_conflux_set_legs_linked",
            "Legs linked now, per set and its exit: one of ours (resumes) or tor's (CONFLUX.md)", t->linked_legs(),
            {{"set", set_label}, {"exit", exit_kind_label(t->exit_kind())}});
    s.counter("conflux_proxy_conflux_set_switches_sent_total", "SWITCH cells sent, per set", ss.switches_sent,
              {{"set", set_label}});
    s.counter("conflux_proxy_conflux_set_switches_received_total", "SWITCH cells received, per set",
              ss.switches_received, {{"set", set_label}});
    s.counter("conflux_proxy_conflux_set_cells_resent_total", "Cells resent after a leg died, per set and taking leg",
              ss.cells_resent - ss.cells_resent_on_relinked, {{"set", set_label}, {"leg", "replacement"}});
    s.counter("conflux_proxy_conflux_set_cells_resent_total", "", ss.cells_resent_on_relinked,
              {{"set", set_label}, {"leg", "surviving"}});
    s.counter("conflux_proxy_conflux_set_legs_relinked_total", "Surviving legs relinked to take a dead leg's cells",
              ss.legs_relinked, {{"set", set_label}});
    s.counter("conflux_proxy_conflux_set_duplicates_dropped_total", "Resent cells received twice, per set",
              ss.duplicates_dropped, {{"set", set_label}});
    s.gauge("conflux_proxy_conflux_set_reorder_bytes", "Out-of-order bytes waiting, per set", set->reorder_bytes(),
            {{"set", set_label}});
    s.gauge("conflux_proxy_conflux_set_reorder_cells_max", "Deepest out-of-order queue so far, per set",
            ss.max_reorder_cells, {{"set", set_label}});
    s.counter("conflux_proxy_conflux_set_unconfirmed_holds_total",
              "Answers of no leg for DATA because the set ran max_unconfirmed_cells ahead of its legs' SENDMEs, "
              "per set",
              ss.unconfirmed_holds, {{"set", set_label}});
    for (const auto& leg : set->legs()) {
      metrics::Labels l{{"set", set_label}, {"leg", std::to_string(leg.id.value())}};
      s.gauge("conflux_proxy_conflux_leg_rtt_seconds", "Smoothed RTT per live leg", seconds(leg.srtt), l);
      s.gauge("conflux_proxy_conflux_leg_min_rtt_seconds", "Smallest RTT sample per live leg", seconds(leg.min_rtt),
              l);
      s.gauge("conflux_proxy_conflux_leg_cwnd_cells", "Window per live leg", leg.cwnd, l);
      s.gauge("conflux_proxy_conflux_leg_inflight_cells", "DATA cells not yet acknowledged per live leg",
              leg.inflight, l);
      s.counter("conflux_proxy_conflux_leg_cells_sent_total", "Sequenced cells sent per live leg", leg.cells_sent,
                l);
      s.counter("conflux_proxy_conflux_leg_cells_received_total", "Sequenced cells received per live leg",
                leg.cells_received, l);
    }
  }
}

// Congestion control (prop 324): how exits answered, per open circuit what
// Vegas sees, and the streams' XON/XOFF (CONGESTION-CONTROL.md).
void render_cc(metrics::Snapshot& s, const CircuitPool& pool, const ProxyCounters& c) {
  const auto& st = pool.stats();
  const char* help = "Built circuits that asked their exit for congestion control, by its answer";
  s.counter("conflux_proxy_cc_circuits_total", help, st.cc_agreed, {{"mode", "congestion_control"}});
  s.counter("conflux_proxy_cc_circuits_total", help, st.cc_fixed_windows, {{"mode", "fixed_windows"}});
  for (const Circuit* circ : pool.open_circuits()) {
    const proto::Vegas* v = circ->vegas();
    if (v == nullptr) continue;
    metrics::Labels l{{"circuit", std::to_string(circ->info().serial)}};
    s.gauge("conflux_proxy_cc_cwnd_cells", "Congestion window per open circuit", v->cwnd(), l);
    s.gauge("conflux_proxy_cc_inflight_cells", "DATA cells not yet acknowledged per open circuit", v->inflight(), l);
    s.gauge("conflux_proxy_cc_rtt_seconds", "Smoothed RTT per open circuit",
            static_cast<double>(v->rtt().ewma_usec()) / 1e6, l);
    s.gauge("conflux_proxy_cc_min_rtt_seconds", "Smallest RTT per open circuit",
            static_cast<double>(v->rtt().min_usec()) / 1e6, l);
    s.gauge("conflux_proxy_cc_slow_start", "1 while the circuit is in slow start", v->in_slow_start() ? 1 : 0, l);
  }
  const char* help_flow = "XON/XOFF on streams over congestion-controlled circuits";
  s.counter("conflux_proxy_stream_flow_cells_total", help_flow, c.xoffs_sent, {{"cell", "xoff"}, {"direction", "sent"}});
  s.counter("conflux_proxy_stream_flow_cells_total", help_flow, c.xons_sent, {{"cell", "xon"}, {"direction", "sent"}});
  s.counter("conflux_proxy_stream_flow_cells_total", help_flow, c.xoffs_received,
            {{"cell", "xoff"}, {"direction", "received"}});
  s.counter("conflux_proxy_stream_flow_cells_total", help_flow, c.xons_received,
            {{"cell", "xon"}, {"direction", "received"}});
}

}  // namespace

ProxyMetrics::ProxyMetrics(const ProxyCounters& counters, const CircuitPool& pool, const LinkPool& links,
                           const ConfluxPool* conflux)
    : counters_(counters), pool_(pool), links_(links), conflux_(conflux),
      build_seconds_({0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}) {}

void ProxyMetrics::observe_build(std::chrono::milliseconds took) {
  build_seconds_.observe(static_cast<double>(took.count()) / 1000.0);
}

std::string ProxyMetrics::render() const {
  metrics::Snapshot s;
  const auto& c = counters_;
  const auto& stats = pool_.stats();
  s.gauge("conflux_proxy_bootstrap_percent", "Bootstrap progress, as in the Bootstrapped log lines", bootstrap_percent);
  s.gauge("conflux_proxy_channels_open", "Channels (TLS links) to first hops", links_.links_open());
  s.gauge("conflux_proxy_circuits", "Circuits by state", pool_.open_count(), {{"state", "open"}});
  s.gauge("conflux_proxy_circuits", "Circuits by state", pool_.building_count(), {{"state", "building"}});
  s.gauge("conflux_proxy_circuits", "Circuits by state", pool_.clean_count(), {{"state", "clean"}});
  const char* help_events = "Circuit events since start";
  s.counter("conflux_proxy_circuit_events_total", help_events, stats.launched, {{"event", "launched"}});
  s.counter("conflux_proxy_circuit_events_total", help_events, stats.built, {{"event", "built"}});
  s.counter("conflux_proxy_circuit_events_total", help_events, stats.failed, {{"event", "failed"}});
  s.counter("conflux_proxy_circuit_events_total", help_events, stats.timed_out, {{"event", "timed_out"}});
  s.counter("conflux_proxy_circuit_events_total", help_events, stats.closed, {{"event", "closed"}});
  s.counter("conflux_proxy_circuit_events_total", help_events, stats.expired, {{"event", "expired"}});
  s.gauge("conflux_proxy_circuits_pending_limit", "MaxClientCircuitsPending: circuits built at once, at most",
          pool_.max_pending());
  s.gauge("conflux_proxy_streams_waiting", "Streams waiting now for a circuit or a set", pool_.waiting_count(),
          {{"for", "circuit"}});
  s.histogram("conflux_proxy_circuit_build_seconds", "Time from launch to the last hop's EXTENDED2", build_seconds_);
  s.counter("conflux_proxy_socks_connections_total", "SOCKS connections accepted", c.socks_connections);
  s.counter("conflux_proxy_socks_rejected_total", "SOCKS connections refused in the handshake", c.socks_rejected);
  s.gauge("conflux_proxy_streams_active", "Streams carrying data now", c.streams_active);
  const char* help_streams = "Stream outcomes since start";
  s.counter("conflux_proxy_streams_total", help_streams, c.streams_opened, {{"outcome", "opened"}});
  s.counter("conflux_proxy_streams_total", help_streams, c.streams_failed, {{"outcome", "failed"}});
  s.gauge("conflux_proxy_socks_timeout_seconds", "SocksTimeout: a stream is answered by then, served or not",
          socks_timeout.count());
  s.counter("conflux_proxy_stream_socks_timeouts_total", "Streams answered with an error at SocksTimeout",
            c.streams_socks_timeout);
  s.counter("conflux_proxy_stream_retries_total", "Streams tried again on another circuit", c.stream_retries);
  for (std::size_t r = 0; r < c.end_reasons.size(); ++r)
    if (c.end_reasons[r] != 0)
      s.counter("conflux_proxy_stream_end_reasons_total", "END reasons exits gave before CONNECTED", c.end_reasons[r],
                {{"reason", std::to_string(r)}});
  s.counter("conflux_proxy_bytes_total", "Application bytes carried", c.bytes_to_network, {{"direction", "sent"}});
  s.counter("conflux_proxy_bytes_total", "Application bytes carried", c.bytes_from_network,
            {{"direction", "received"}});
  s.counter("conflux_proxy_dir_consensus_fetches_total", "Consensuses fetched, by how", c.consensus_begin_dir,
            {{"via", "begin_dir"}});
  s.counter("conflux_proxy_dir_consensus_fetches_total", "Consensuses fetched, by how", c.consensus_dir_port,
            {{"via", "dir_port"}});
  render_cc(s, pool_, c);
  if (conflux_ != nullptr) render_conflux(s, *conflux_);
  return s.render();
}

}  // namespace conflux::client
