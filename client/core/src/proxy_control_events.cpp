// The proxy's once-a-second control events (docs/CONTROL.md): CIRC_BW as
// tor 0.4.9 writes it, and for Conflux legs CIRC_MINOR PURPOSE_CHANGED when
// one links plus our CONFLUX_LEG (LINKED, BW each second it moved bytes,
// CLOSED), which the desktop app draws per-leg throughput from.
#include <chrono>
#include <cstdio>
#include <ctime>

#include "conflux/client/conflux_tunnel.hpp"
#include "conflux/client/proxy_control.hpp"

namespace conflux::client {

// tor's format_iso_time_nospace_usec.
std::string ProxyControl::iso_time_usec() {
  const auto now = std::chrono::system_clock::now();
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(us / 1000000);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06lld", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(us % 1000000));
  return buf;
}

namespace {

std::string rtt_ms(proto::RttDuration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f",
                static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(d).count()) / 1000.0);
  return buf;
}

std::string leg_event(std::uint64_t set, std::uint64_t circ, std::string_view status, const std::string& rtt,
                      const CircuitBytes& b) {
  return "CONFLUX_LEG SET=" + std::to_string(set) + " CIRC=" + std::to_string(circ) + " STATUS=" +
         std::string(status) + " RTT_MS=" + rtt + " READ=" + std::to_string(b.read) +
         " WRITTEN=" + std::to_string(b.written);
}

}  // namespace

std::map<std::uint64_t, const Circuit*> ProxyControl::circuits_by_serial() const {
  std::map<std::uint64_t, const Circuit*> out;
  for (const Circuit* c : src_.pool.all_circuits()) out[c->info().serial] = c;
  return out;
}

void ProxyControl::tick() {
  const auto circuits = circuits_by_serial();
  circ_bw(circuits);
  stream_bw(iso_time_usec());
  guard_events();
  leg_events(circuits);
}

// control-spec 4.1.10 "GUARD ENTRY name STATUS": NEW when a guard joins the
// sample, DROPPED when it leaves, DOWN and UP as it fails and comes back,
// found by comparing the sample with the last tick's.
void ProxyControl::guard_events() {
  if (!src_.guards) return;
  std::map<std::string, bool> now;
  for (const auto& g : src_.guards()) {
    now[g.name] = g.reachable;
    const auto before = guards_seen_.find(g.name);
    if (!port_) continue;
    if (before == guards_seen_.end()) {
      port_->publish("GUARD", "GUARD ENTRY " + g.name + " NEW");
    } else if (before->second != g.reachable) {
      port_->publish("GUARD", "GUARD ENTRY " + g.name + (g.reachable ? " UP" : " DOWN"));
    }
  }
  for (const auto& [name, reachable] : guards_seen_)
    if (now.count(name) == 0 && port_) port_->publish("GUARD", "GUARD ENTRY " + name + " DROPPED");
  guards_seen_ = std::move(now);
}

// control-spec 4.1.13: "STREAM_BW ID WRITTEN READ TIME", the bytes the
// application wrote (we sent on) and read since the last event, only for
// streams that moved some, as tor's control_event_stream_bandwidth.
void ProxyControl::stream_bw(const std::string& time) {
  for (auto& [id, row] : streams_) stream_bw_one(id, row, time);
}

void ProxyControl::stream_bw_one(std::uint64_t id, StreamRow& row, const std::string& time) {
  const auto stream = row.stream.lock();
  if (!stream) return;
  const std::uint64_t sent = stream->bytes_sent() - row.sent;
  const std::uint64_t received = stream->bytes_received() - row.received;
  row.sent = stream->bytes_sent();
  row.received = stream->bytes_received();
  if ((sent == 0 && received == 0) || !port_) return;
  port_->publish("STREAM_BW", "STREAM_BW " + std::to_string(id) + " " + std::to_string(sent) + " " +
                                  std::to_string(received) + " " + time);
}

void ProxyControl::circ_bw(const std::map<std::uint64_t, const Circuit*>& circuits) {
  std::map<std::uint64_t, CircuitBytes> now;
  const std::string time = iso_time_usec();
  for (const auto& [serial, c] : circuits) {
    const CircuitBytes b = c->bytes();
    now[serial] = b;
    const auto it = circ_bw_last_.find(serial);
    const CircuitBytes last = it != circ_bw_last_.end() ? it->second : CircuitBytes{};
    const std::uint64_t read = b.read - last.read;
    const std::uint64_t written = b.written - last.written;
    if ((read == 0 && written == 0) || !port_) continue;
    const std::uint64_t dread = b.delivered_read - last.delivered_read;
    const std::uint64_t dwritten = b.delivered_written - last.delivered_written;
    // OVERHEAD: the relay payload the cells had room for and did not carry.
    const std::uint64_t cells_in = read / CircuitBytes::kCellPayload;
    const std::uint64_t cells_out = written / CircuitBytes::kCellPayload;
    const std::uint64_t oread = cells_in * CircuitBytes::kRelayPayload > dread ? cells_in * CircuitBytes::kRelayPayload - dread : 0;
    const std::uint64_t owritten =
        cells_out * CircuitBytes::kRelayPayload > dwritten ? cells_out * CircuitBytes::kRelayPayload - dwritten : 0;
    port_->publish("CIRC_BW", "CIRC_BW ID=" + std::to_string(serial) + " READ=" + std::to_string(read) +
                                  " WRITTEN=" + std::to_string(written) + " TIME=" + time +
                                  " DELIVERED_READ=" + std::to_string(dread) + " OVERHEAD_READ=" + std::to_string(oread) +
                                  " DELIVERED_WRITTEN=" + std::to_string(dwritten) +
                                  " OVERHEAD_WRITTEN=" + std::to_string(owritten));
  }
  circ_bw_last_ = std::move(now);  // closed circuits are forgotten
}

void ProxyControl::leg_events(const std::map<std::uint64_t, const Circuit*>& circuits) {
  std::map<std::uint64_t, LegRow> now;
  if (src_.conflux != nullptr) {
    for (const ConfluxTunnel* t : src_.conflux->sets()) {
      const proto::ConfluxSet* set = t->set();
      if (set == nullptr) continue;
      for (const auto& l : set->legs()) {
        const std::uint64_t serial = t->leg_serial(l.id);
        auto it = circuits.find(serial);
        if (it == circuits.end()) continue;
        now[serial] = LegRow{t->serial(), 0, it->second->bytes()};
        now[serial].rtt_ms = static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(l.srtt).count()) / 1000.0;
        const std::string rtt = rtt_ms(l.srtt);
        const auto before = legs_linked_.find(serial);
        if (before == legs_linked_.end()) {
          legs_linked_[serial] = now[serial];  // circuit_line says CONFLUX_LINKED from here
          if (port_) {
            port_->publish("CIRC_MINOR", "CIRC_MINOR " + circuit_line(*it->second, "PURPOSE_CHANGED", it->second->info().path.size()) +
                                             " OLD_PURPOSE=CONFLUX_UNLINKED");
            port_->publish("CONFLUX_LEG", leg_event(t->serial(), serial, "LINKED", rtt, now[serial].bytes));
          }
        } else if (port_ && (now[serial].bytes.read != before->second.bytes.read ||
                             now[serial].bytes.written != before->second.bytes.written)) {
          port_->publish("CONFLUX_LEG", leg_event(t->serial(), serial, "BW", rtt, now[serial].bytes));
        }
      }
    }
  }
  for (const auto& [serial, row] : legs_linked_) {
    if (now.count(serial) != 0 || !port_) continue;
    char rtt[32];
    std::snprintf(rtt, sizeof rtt, "%.1f", row.rtt_ms);
    port_->publish("CONFLUX_LEG", leg_event(row.set, serial, "CLOSED", rtt, row.bytes));
  }
  legs_linked_ = std::move(now);
}

}  // namespace conflux::client
