#include "conflux/client/proxy_metrics.hpp"

#include "conflux/metrics/snapshot.hpp"

namespace conflux::client {

ProxyMetrics::ProxyMetrics(const ProxyCounters& counters, const CircuitPool& pool, const LinkPool& links)
    : counters_(counters), pool_(pool), links_(links), build_seconds_({0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}) {}

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
  s.histogram("conflux_proxy_circuit_build_seconds", "Time from launch to the last hop's EXTENDED2", build_seconds_);
  s.counter("conflux_proxy_socks_connections_total", "SOCKS connections accepted", c.socks_connections);
  s.counter("conflux_proxy_socks_rejected_total", "SOCKS connections refused in the handshake", c.socks_rejected);
  s.gauge("conflux_proxy_streams_active", "Streams carrying data now", c.streams_active);
  const char* help_streams = "Stream outcomes since start";
  s.counter("conflux_proxy_streams_total", help_streams, c.streams_opened, {{"outcome", "opened"}});
  s.counter("conflux_proxy_streams_total", help_streams, c.streams_failed, {{"outcome", "failed"}});
  s.counter("conflux_proxy_stream_retries_total", "Streams tried again on another circuit", c.stream_retries);
  for (std::size_t r = 0; r < c.end_reasons.size(); ++r)
    if (c.end_reasons[r] != 0)
      s.counter("conflux_proxy_stream_end_reasons_total", "END reasons exits gave before CONNECTED", c.end_reasons[r],
                {{"reason", std::to_string(r)}});
  s.counter("conflux_proxy_bytes_total", "Application bytes carried", c.bytes_to_network, {{"direction", "sent"}});
  s.counter("conflux_proxy_bytes_total", "Application bytes carried", c.bytes_from_network,
            {{"direction", "received"}});
  return s.render();
}

}  // namespace conflux::client
