#include "relay_cc_metrics.hpp"

#include <array>
#include <string>
#include <string_view>

namespace conflux::relay {
namespace {

// By proto::SlowStartExit; slot 0 (None) is never counted.
constexpr std::array<std::string_view, 4> kSlowStartExitNames = {"none", "inc_floor", "congestion", "ss_max"};

void per_circuit(metrics::Snapshot& out, const proto::CcCircuitSample& c) {
  const metrics::Labels l{{"circuit", std::to_string(c.circuit)}};
  const auto& i = c.info;
  out.gauge("conflux_relay_cc_cwnd_cells", "Vegas's congestion window, for the circuits with the largest one.",
            i.window, l);
  out.gauge("conflux_relay_cc_inflight_cells", "DATA cells sent and not yet acknowledged by a SENDME.", i.inflight, l);
  out.gauge("conflux_relay_cc_bdp_cells", "Vegas's bandwidth-delay product estimate (cwnd * min RTT / RTT).", i.bdp,
            l);
  out.gauge("conflux_relay_cc_rtt_seconds", "The RTT estimator's EWMA.", static_cast<double>(i.ewma_rtt_usec) / 1e6,
            l);
  out.gauge("conflux_relay_cc_min_rtt_seconds", "The RTT estimator's minimum.",
            static_cast<double>(i.min_rtt_usec) / 1e6, l);
  out.gauge("conflux_relay_cc_slow_start", "1 while the circuit is in slow start.", i.slow_start ? 1 : 0, l);
}

}  // namespace

void collect_cc_metrics(metrics::Snapshot& out, const net::ChannelManager& manager, const net::RuntimeCounters& c,
                        const exit::ExitStats& e) {
  const proto::CcCircuitsView view = manager.cc_circuits(kCcLargestCircuits);
  const char* help_circuits = "Open circuits on which this relay runs Vegas (their exit), by slow start or not.";
  out.gauge("conflux_relay_cc_circuits", help_circuits, view.in_slow_start, {{"state", "slow_start"}});
  out.gauge("conflux_relay_cc_circuits", help_circuits, view.circuits - view.in_slow_start, {{"state", "steady"}});
  for (std::size_t r = 1; r < kSlowStartExitNames.size(); ++r) {
    out.counter("conflux_relay_cc_slow_start_exits_total", "Circuits whose Vegas left slow start, by why.",
                c.cc_slow_start_exits.at(r), {{"reason", std::string(kSlowStartExitNames.at(r))}});
  }
  for (const auto& circuit : view.largest) per_circuit(out, circuit);
  const char* help_flow = "XON/XOFF of exit streams on congestion-controlled circuits.";
  out.counter("conflux_relay_exit_stream_flow_cells_total", help_flow, e.xoffs_sent,
              {{"cell", "xoff"}, {"direction", "sent"}});
  out.counter("conflux_relay_exit_stream_flow_cells_total", help_flow, e.xons_sent,
              {{"cell", "xon"}, {"direction", "sent"}});
  out.counter("conflux_relay_exit_stream_flow_cells_total", help_flow, e.xoffs_received,
              {{"cell", "xoff"}, {"direction", "received"}});
  out.counter("conflux_relay_exit_stream_flow_cells_total", help_flow, e.xons_received,
              {{"cell", "xon"}, {"direction", "received"}});
}

}  // namespace conflux::relay
