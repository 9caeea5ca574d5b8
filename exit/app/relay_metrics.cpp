#include "relay_metrics.hpp"

#include <array>
#include <string>

#include "conflux/cell/destroy_cell.hpp"

namespace conflux::relay {
namespace {

// tor-spec 6.3 names, by value; slot 0 also holds values the spec does not list.
constexpr std::array<std::string_view, exit::kEndReasonSlots> kEndReasonNames = {
    "OTHER",   "MISC",        "RESOLVEFAILED", "CONNECTREFUSED", "EXITPOLICY",
    "DESTROY", "DONE",        "TIMEOUT",       "NOROUTE",        "HIBERNATING",
    "INTERNAL", "RESOURCELIMIT", "CONNRESET",  "TORPROTOCOL",    "NOTDIRECTORY"};

std::string destroy_reason_name(std::size_t slot) {
  if (slot + 1 >= net::RuntimeCounters::kReasonSlots) return "OTHER";
  return std::string(cell::to_string(static_cast<cell::DestroyReason>(slot)));
}

void channels(metrics::Snapshot& out, const net::RuntimeCounters& c) {
  out.gauge("conflux_relay_channels_open", "Open channels (TLS links with a finished link handshake).",
            c.channels_inbound, {{"direction", "inbound"}});
  out.gauge("conflux_relay_channels_open", "", c.channels_outbound, {{"direction", "outbound"}});
  out.gauge("conflux_relay_channels_opening", "Channels in their TLS or link handshake.", c.channels_opening);
  out.gauge("conflux_relay_connects_pending", "TCP connects to other relays under way.", c.connects_pending);
  out.counter("conflux_relay_channels_opened_total", "Channels whose link handshake finished.", c.channels_opened);
  out.counter("conflux_relay_channels_closed_total", "Channels closed, open or not.", c.channels_closed);
  out.counter("conflux_relay_channels_closed_idle_total", "Channels closed for being idle.", c.channels_closed_idle);
  out.counter("conflux_relay_channels_rejected_total", "Connections refused at MaxChannels.", c.channels_rejected);
  out.counter("conflux_relay_handshake_failures_total", "Channels closed before their link handshake finished.",
              c.handshake_failures);
  out.counter("conflux_relay_connect_failures_total", "Channels to other relays that could not be opened.",
              c.connect_failures);
  out.counter("conflux_relay_cells_total", "Circuit cells received and queued for sending on open channels.",
              c.cells_in, {{"direction", "in"}});
  out.counter("conflux_relay_cells_total", "", c.cells_out, {{"direction", "out"}});
  out.counter("conflux_relay_bytes_total", "TLS payload bytes on channels, handshakes included.", c.bytes_in,
              {{"direction", "in"}});
  out.counter("conflux_relay_bytes_total", "", c.bytes_out, {{"direction", "out"}});
}

void circuits(metrics::Snapshot& out, const net::RuntimeCounters& c) {
  out.gauge("conflux_relay_circuits", "Circuits open now.", c.circuits);
  out.counter("conflux_relay_circuits_created_total", "Circuits created.", c.circuits_created);
  out.counter("conflux_relay_circuits_congestion_control_total",
              "Circuits created with congestion control (prop 324) negotiated.", c.circuits_cc);
  out.counter("conflux_relay_circuits_closed_total", "Circuits closed.", c.circuits_closed);
  for (std::size_t r = 0; r < c.circuits_destroyed_by_reason.size(); ++r) {
    out.counter("conflux_relay_circuits_destroyed_total", "Circuits freed, by the DESTROY reason that ended them.",
                c.circuits_destroyed_by_reason[r], {{"reason", destroy_reason_name(r)}});
  }
  out.counter("conflux_relay_circuit_queue_overflows_total",
              "Circuits closed with RESOURCELIMIT because their cell queue was full.", c.circuit_queue_overflows);
}

void streams(metrics::Snapshot& out, const exit::ExitStats& e) {
  out.gauge("conflux_relay_exit_streams", "Exit streams now, by state.", e.streams_pending, {{"state", "pending"}});
  out.gauge("conflux_relay_exit_streams", "", e.streams_open, {{"state", "open"}});
  out.gauge("conflux_relay_exit_streams", "", e.streams_closing, {{"state", "closing"}});
  out.gauge("conflux_relay_exit_dns_pending", "Streams waiting for a DNS lookup.", e.dns_pending);
  out.counter("conflux_relay_exit_begins_total", "BEGIN cells received.", e.begins);
  out.counter("conflux_relay_exit_begin_dirs_total", "BEGIN_DIR cells received.", e.begin_dirs);
  out.counter("conflux_relay_exit_streams_connected_total", "Streams connected (BEGIN and BEGIN_DIR).",
              e.streams_connected);
  out.counter("conflux_relay_exit_resolves_total", "RESOLVE cells received.", e.resolves);
  out.counter("conflux_relay_exit_dns_failures_total", "DNS lookups that failed or timed out.", e.dns_failures);
  out.counter("conflux_relay_exit_dns_timeouts_total", "Streams whose DNS lookup outlived the wait (END TIMEOUT).",
              e.dns_timeouts);
  out.counter("conflux_relay_exit_dns_cache_hits_total", "Lookups answered from the DNS cache.", e.dns_cache_hits);
  out.counter("conflux_relay_exit_dns_refused_total", "Lookups refused: the most DNS queries already in flight.",
              e.dns_refused_full);
  out.counter("conflux_relay_exit_bytes_total", "Stream bytes between clients and servers.", e.bytes_to_servers,
              {{"direction", "to_servers"}});
  out.counter("conflux_relay_exit_bytes_total", "", e.bytes_to_clients, {{"direction", "to_clients"}});
  out.counter("conflux_relay_exit_ends_received_total", "END cells received from clients.", e.ends_received);
  for (std::size_t r = 0; r < e.ends_sent.size(); ++r) {
    out.counter("conflux_relay_exit_ends_sent_total", "END cells sent, by reason.", e.ends_sent[r],
                {{"reason", std::string(kEndReasonNames[r])}});
  }
  out.counter("conflux_relay_exit_cells_dropped_total", "Stream cells dropped (unknown stream, stream 0, ignored).",
              e.cells_dropped);
  out.counter("conflux_relay_exit_protocol_violations_total", "Stream or circuit protocol violations by clients.",
              e.protocol_violations);
  out.counter("conflux_relay_exit_circuits_killed_total", "Circuits the exit closed with reason PROTOCOL.",
              e.circuits_killed);
}

// Label values of conflux_relay_conflux_sets_closed_total, by exit::SetCloseReason.
constexpr std::array<std::string_view, exit::kSetCloseReasons> kSetCloseNames = {
    "protocol", "memory", "legless_timeout", "client", "internal"};

void conflux_sets(metrics::Snapshot& out, const exit::ConfluxJoinStats& j) {
  out.gauge("conflux_relay_conflux_sets", "Conflux sets at this exit (legless ones included).", j.sets);
  out.gauge("conflux_relay_conflux_sets_legless", "Conflux sets waiting for a replacement leg.", j.sets_legless);
  out.gauge("conflux_relay_conflux_legs", "Linked Conflux legs (circuits).", j.legs);
  out.gauge("conflux_relay_conflux_reorder_bytes", "Out-of-order bytes held by all sets (the shared budget).",
            j.reorder_bytes);
  out.gauge("conflux_relay_conflux_reorder_cap_bytes", "The shared out-of-order budget's hard cap.",
            j.reorder_cap_bytes);
  out.gauge("conflux_relay_conflux_retained_bytes", "Sent cells kept for retransmission, all sets.",
            j.retained_bytes);
  out.counter("conflux_relay_conflux_sets_created_total", "Conflux sets created by a LINK.", j.sets_created);
  out.counter("conflux_relay_conflux_legs_linked_total", "CONFLUX_LINKs accepted (new sets and joins).",
              j.legs_linked);
  out.counter("conflux_relay_conflux_links_refused_total", "CONFLUX_LINKs whose circuit was closed instead.",
              j.links_refused);
  out.counter("conflux_relay_conflux_legs_closed_total", "Linked legs gone, for any reason.", j.legs_closed);
  out.counter("conflux_relay_conflux_linked_ack_timeouts_total", "Legs whose CONFLUX_LINKED_ACK came too late.",
              j.linked_ack_timeouts);
  for (std::size_t r = 0; r < j.sets_closed.size(); ++r) {
    out.counter("conflux_relay_conflux_sets_closed_total", "Conflux sets closed, by reason.", j.sets_closed[r],
                {{"reason", std::string(kSetCloseNames[r])}});
  }
  out.counter("conflux_relay_conflux_legs_relinked_total",
              "CONFLUX_LINKs again on linked legs (a surviving leg taking a dead leg's cells).", j.legs_relinked);
  out.counter("conflux_relay_conflux_cells_resent_total", "Cells of dead legs sent again, by the leg that took them.",
              j.cells_resent - j.cells_resent_on_relinked, {{"leg", "replacement"}});
  out.counter("conflux_relay_conflux_cells_resent_total", "", j.cells_resent_on_relinked, {{"leg", "surviving"}});
  out.counter("conflux_relay_conflux_duplicates_dropped_total", "Resent copies the exit already had, dropped.",
              j.duplicates_dropped);
  out.counter("conflux_relay_conflux_switches_total", "CONFLUX_SWITCH cells.", j.switches_sent,
              {{"direction", "sent"}});
  out.counter("conflux_relay_conflux_switches_total", "", j.switches_received, {{"direction", "received"}});
  out.counter("conflux_relay_conflux_unconfirmed_holds_total",
              "Answers of no leg for DATA because a set ran max_unconfirmed_cells ahead of its legs' SENDMEs "
              "(a stalled leg).",
              j.unconfirmed_holds);
}

}  // namespace

void collect_relay_metrics(metrics::Snapshot& out, const net::RuntimeCounters& c, const exit::ExitStats& e,
                           const exit::ConfluxJoinStats& j) {
  circuits(out, c);
  channels(out, c);
  streams(out, e);
  conflux_sets(out, j);
}

void collect_scheduler_metrics(metrics::Snapshot& out, const net::Scheduler& s) {
  const net::SchedulerStats& st = s.stats();
  out.gauge("conflux_relay_sched_policy", "The socket scheduler in use (1 for the one named).", 1,
            {{"policy", net::scheduler_policy_name(s.policy())}});
  out.counter("conflux_relay_sched_runs_total", "Scheduler runs.", st.runs);
  out.counter("conflux_relay_sched_cells_total", "Circuit cells moved to channel output buffers.", st.cells);
  out.counter("conflux_relay_sched_bytes_total", "Bytes moved to channel output buffers.", st.bytes);
  out.counter("conflux_relay_sched_kist_runs_total", "KIST (or KISTLite) runs.", st.kist_runs);
  out.counter("conflux_relay_sched_kist_runs_released_total",
              "KIST runs that moved fewer than KISTSchedHoldMinCells cells and did not hold the next run.",
              st.kist_runs_released);
  out.counter("conflux_relay_sched_tcp_info_calls_total", "Kernel queries by KIST, one per pending socket per run.",
              st.tcp_info_calls);
  out.counter("conflux_relay_sched_kernel_calls_total",
              "System calls behind KIST's kernel queries (2 each for KISTLimit Deployed, 3 for Original).",
              st.kernel_calls);
  out.counter("conflux_relay_sched_limit_reached_total", "Sockets a KIST run left with cells at their limit.",
              st.limit_reached);
  out.counter("conflux_relay_sched_token_stalls_total", "Runs stopped by an empty bandwidth bucket.",
              st.token_stalls);
  out.gauge("conflux_relay_sched_global_limit_bytes",
            "KISTGlobalLimit: the cap on one KIST run's bytes (0 while there is none).", st.global_limit_bytes);
  out.counter("conflux_relay_sched_global_limit_reached_total",
              "KIST runs that stopped at the global limit with cells left.", st.global_limit_reached);
  out.histogram("conflux_relay_sched_pending_sockets", "Pending sockets per KIST run.", st.pending_sockets);
  out.histogram("conflux_relay_sched_tcp_info_seconds", "Time per KIST run in kernel queries.",
                st.tcp_info_seconds);
  out.histogram("conflux_relay_cell_relay_queue_seconds",
                "Sampled cells: time from the circuit queue to the kernel.", st.relay_queue_seconds);
  out.histogram("conflux_relay_cell_kernel_queue_seconds",
                "Sampled cells: time in the kernel until acknowledged (SIOCOUTQ + bytes acked).",
                st.kernel_queue_seconds);
  out.counter("conflux_relay_cell_kernel_probes_dropped_total", "Sampled writes not followed (too many at once).",
              st.kernel_probes_dropped);
  out.counter("conflux_relay_sched_probe_wakeups_total", "Wake-ups of the kernel-queue probes' poll timer.",
              st.kernel_probe_wakeups);
  out.counter("conflux_relay_sched_probe_polls_total",
              "TCP_INFO reads made for kernel-queue probes alone (not by a KIST run).", st.kernel_probe_polls);
  out.counter("conflux_relay_sched_probes_settled_in_runs_total",
              "Kernel-queue probes seen acknowledged by a KIST run's own socket query.",
              st.kernel_probes_settled_in_runs);
  out.counter("conflux_relay_cell_kernel_probes_given_up_total",
              "Sampled writes still unacknowledged after 30 s (not in the histogram).", st.kernel_probes_given_up);
}

}  // namespace conflux::relay
