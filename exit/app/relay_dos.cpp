#include "relay_dos.hpp"

#include <unistd.h>

#include <optional>

#include "conflux/log/log.hpp"
#include "conflux/proto/queue_memory.hpp"

namespace conflux::relay {
namespace {

std::optional<bool> autobool(config::AutoBool b) {
  if (b == config::AutoBool::Auto) return std::nullopt;
  return b == config::AutoBool::True;
}

std::uint32_t seconds(std::chrono::seconds s) { return static_cast<std::uint32_t>(s.count()); }

std::optional<std::uint64_t> total_ram() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return std::nullopt;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
}

}  // namespace

proto::DosOptions dos_options(const config::RelayOptions& o) {
  proto::DosOptions d;
  d.cc_enabled = autobool(o.dos.cc_enabled);
  d.cc_min_connections = o.dos.cc_min_connections;
  d.cc_rate = o.dos.cc_rate;
  d.cc_burst = o.dos.cc_burst;
  d.cc_defense_type = o.dos.cc_defense_type;
  d.cc_defense_time_period = seconds(o.dos.cc_defense_time_period);
  d.conn_enabled = autobool(o.dos.conn_enabled);
  d.conn_max_concurrent = o.dos.conn_max_concurrent;
  d.conn_defense_type = o.dos.conn_defense_type;
  d.conn_connect_rate = o.dos.conn_connect_rate;
  d.conn_connect_burst = o.dos.conn_connect_burst;
  d.conn_connect_defense_time_period = seconds(o.dos.conn_connect_defense_time_period);
  d.stream_enabled = autobool(o.dos.stream_enabled);
  d.stream_rate = o.dos.stream_rate;
  d.stream_burst = o.dos.stream_burst;
  d.stream_defense_type = o.dos.stream_defense_type;
  return d;
}

proto::DosParams relay_dos_params(const config::RelayOptions& o,
                                  const std::map<std::string, std::int32_t>& consensus) {
  // Before a consensus, OverrideConsensusParams stands in for it (as for
  // congestion control).
  return proto::dos_params_from(dos_options(o), consensus.empty() ? o.override_consensus_params : consensus);
}

std::uint64_t relay_max_mem_in_queues(const config::RelayOptions& o, bool log) {
  const auto ram = total_ram();
  const auto c = proto::choose_max_mem_in_queues(o.max_mem_in_queues, ram, o.testing_tor_network);
  if (!log) return c.bytes;
  const std::string mb = std::to_string(c.bytes / proto::kOneMegabyte) + " MB";
  if (o.max_mem_in_queues == 0) {
    log::write(log::Severity::Notice, std::string(ram ? "Based on detected system memory, " : "") +
                                          "MaxMemInQueues is set to " + mb +
                                          ". You can override this by setting MaxMemInQueues by hand.");
  } else if (c.raised) {
    log::write(log::Severity::Warn, "MaxMemInQueues must be at least 64 MB on relays; using " + mb + ".");
  } else if (c.low) {
    log::write(log::Severity::Warn, "MaxMemInQueues is set to a low value (" + mb +
                                        "); if your relay doesn't work, this may be the reason why.");
  }
  return c.bytes;
}

std::vector<proto::DosAddress> relay_addresses(const dir::Consensus& c) {
  std::vector<proto::DosAddress> out;
  out.reserve(c.body.routers.size());
  for (const auto& r : c.body.routers) {
    out.push_back(proto::dos_address_v4(r.ipv4));
    if (r.ipv6) out.push_back(*r.ipv6);
  }
  return out;
}

std::string dos_summary(const proto::DosParams& p) {
  std::string s = "DoS defences: circuit creation ";
  s += p.cc_enabled ? "on (" + std::to_string(p.cc_rate) + "/s, burst " + std::to_string(p.cc_burst) + ", from " +
                          std::to_string(p.cc_min_connections) + " connections)"
                    : std::string("off");
  s += "; connections ";
  s += p.conn_enabled ? "on (at most " + std::to_string(p.conn_max_concurrent) + " at once, " +
                            std::to_string(p.conn_connect_rate) + "/s, burst " + std::to_string(p.conn_connect_burst) +
                            ")"
                      : std::string("off");
  s += "; stream creation ";
  s += p.stream_enabled ? "on (" + std::to_string(p.stream_rate) + "/s per circuit, burst " +
                              std::to_string(p.stream_burst) + ")"
                        : std::string("off");
  return s;
}

std::string dos_heartbeat(const proto::DosParams& p, const net::RuntimeCounters& c) {
  const auto& d = c.dos;
  std::string s = "Heartbeat: DoS mitigation since startup: " + std::to_string(c.circuit_queue_overflows) +
                  " circuits killed with too many cells, ";
  s += p.cc_enabled ? std::to_string(d.circuit_rejected) + " circuits rejected, " + std::to_string(d.marked_address) +
                          " marked addresses, " + std::to_string(d.marked_address_maxq) +
                          " marked addresses for max queue, "
                    : std::string("[DoSCircuitCreationEnabled disabled], ");
  s += p.conn_enabled ? std::to_string(d.concurrent_conn_rejected) + " same address concurrent connections rejected, " +
                            std::to_string(d.conn_rejected) + " connections rejected, "
                      : std::string("[DoSConnectionEnabled disabled], ");
  s += p.stream_enabled ? std::to_string(d.stream_rejected) + " stream requests rejected"
                        : std::string("[DoSStreamCreationEnabled disabled]");
  s += "; MaxMemInQueues closed " + std::to_string(c.oom_circuits_killed) + " circuits (" +
       std::to_string(c.oom_bytes_removed) + " bytes).";
  return s;
}

void collect_dos_metrics(metrics::Snapshot& out, const net::RuntimeCounters& c) {
  const auto& d = c.dos;
  const char* help = "Denial of Service defenses related counters";
  out.counter("tor_relay_dos_total", help, d.circuit_rejected, {{"type", "circuit_rejected"}});
  out.counter("tor_relay_dos_total", "", c.circuit_queue_overflows, {{"type", "circuit_killed_max_cell"}});
  out.counter("tor_relay_dos_total", "", d.marked_address, {{"type", "marked_address"}});
  out.counter("tor_relay_dos_total", "", d.marked_address_maxq, {{"type", "marked_address_maxq"}});
  out.counter("tor_relay_dos_total", "", d.conn_rejected, {{"type", "conn_rejected"}});
  out.counter("tor_relay_dos_total", "", d.concurrent_conn_rejected, {{"type", "concurrent_conn_rejected"}});
  out.counter("tor_relay_dos_total", "", d.stream_rejected, {{"type", "stream_rejected"}});
  out.counter("tor_relay_load_oom_bytes_total", "Total number of bytes the OOM has freed by subsystem",
              c.oom_bytes_removed, {{"subsys", "cell"}});
  out.counter("conflux_relay_oom_circuits_killed_total",
              "Circuits closed because the cell queues reached MaxMemInQueues.", c.oom_circuits_killed);
  out.gauge("conflux_relay_queued_cell_bytes", "Bytes in every channel's cell queues (counted against MaxMemInQueues).",
            c.queued_bytes);
  out.gauge("conflux_relay_exit_buffered_bytes",
            "Client bytes the exit holds for servers and its Conflux reorder queues (counted against MaxMemInQueues).",
            c.exit_buffered_bytes);
  out.gauge("conflux_relay_channel_buffered_bytes",
            "Bytes in the channels' input and output buffers (counted against MaxMemInQueues).",
            c.channel_buffered_bytes);
  out.gauge("conflux_relay_max_mem_in_queues_bytes", "MaxMemInQueues in force.", c.max_mem_in_queues);
  out.counter("conflux_relay_dos_addresses_forgotten_total",
              "Client addresses whose DoS state was dropped to stay within its bound.", d.addresses_forgotten);
}

}  // namespace conflux::relay
