// Carries out the StreamPump's actions on sockets and circuits, the way
// net::ChannelManager::run_actions carries out the circuit switch's.
#include "exit_impl.hpp"

namespace conflux::exit {

StreamPtr ExitStreams::Impl::live(StreamRef ref) const {
  auto it = by_ref.find(ref);
  if (it == by_ref.end() || it->second->closed) return nullptr;
  return it->second;
}

void ExitStreams::Impl::run() {
  // An event raised while we carry out an action (a send that closes the
  // circuit, say) adds to the pump's list; this loop takes it next.
  if (running) return;
  running = true;
  for (auto batch = pump.take_actions(); !batch.empty(); batch = pump.take_actions()) {
    for (auto& a : batch) execute(a);
  }
  running = false;
  report_stalls();
}

namespace {
constexpr auto kStallCheckEvery = std::chrono::seconds(5);
constexpr auto kStallReportAfter = std::chrono::seconds(10);
}  // namespace

void ExitStreams::Impl::report_stalls() {
  const auto t = now();
  if (t == proto::CcClock::time_point{} || t - last_stall_check < kStallCheckEvery) return;
  last_stall_check = t;
  for (auto& [handle, c] : circuits) {
    for (auto& [id, s] : c.streams) {
      if (s->phase != Phase::Open || t - s->last_progress < kStallReportAfter ||
          t - s->last_stall_log < kStallReportAfter)
        continue;
      s->last_stall_log = t;
      const auto idle = std::chrono::duration_cast<std::chrono::seconds>(t - s->last_progress).count();
      std::string circ = " | can_send_data=" + std::to_string(out.can_send_data(handle)) +
                         " blocked_on_channel=" + std::to_string(out.blocked_on_channel(handle));
      if (auto f = out.flow_info(handle)) {
        circ += " cwnd=" + std::to_string(f->window) + " inflight=" + std::to_string(f->inflight) +
                " rtt_ms=" + std::to_string(f->ewma_rtt_usec / 1000) +
                " min_rtt_ms=" + std::to_string(f->min_rtt_usec / 1000);
      }
      log(LogLevel::Info, "circuit " + std::to_string(handle) + " stream " + std::to_string(id.value()) +
                               " moved no bytes for " + std::to_string(idle) + " s: " + pump.describe(s->ref) + circ);
    }
  }
}

void ExitStreams::Impl::execute(PumpAction& action) {
  // Actions name streams by reference: one finished by an earlier action
  // (its circuit was dropped while sending) is skipped.
  std::visit(Overloaded{
                 [&](pump::StartRead& a) {
                   if (StreamPtr s = live(a.ref)) start_read(s, a.max_bytes);
                 },
                 [&](pump::ReadLater& a) {
                   if (StreamPtr s = live(a.ref)) read_later(s, a.after);
                 },
                 [&](pump::CheckWritable& a) { pump.circuit_writable(a.circuit, out.can_send_data(a.circuit)); },
                 [&](pump::Send& a) {
                   StreamPtr s = live(a.ref);
                   if (!s) return;
                   if (const auto* end = std::get_if<cell::EndMsg>(&a.msg)) ++counters.ends_sent[end_reason_slot(end->reason)];
                   if (std::holds_alternative<cell::XoffMsg>(a.msg)) ++counters.xoffs_sent;
                   if (std::holds_alternative<cell::XonMsg>(a.msg)) ++counters.xons_sent;
                   const auto* data = std::get_if<cell::DataMsg>(&a.msg);
                   const std::size_t n = data != nullptr ? data->data.size() : 0;
                   if (send(s, a.msg)) counters.bytes_to_clients += n;
                   if (n > 0) s->last_progress = now();
                 },
                 [&](pump::WriteToServer& a) {
                   if (StreamPtr s = live(a.ref)) start_write(s, std::move(a.chunks));
                 },
                 [&](pump::Detach& a) {
                   if (StreamPtr s = live(a.ref)) detach_closing(s);
                 },
                 [&](pump::ShutdownSend& a) {
                   if (StreamPtr s = live(a.ref)) {
                     boost::system::error_code ignored;
                     s->socket.shutdown(tcp::socket::shutdown_send, ignored);
                   }
                 },
                 [&](pump::Finish& a) {
                   if (StreamPtr s = live(a.ref)) finish(s);
                 },
                 [&](pump::KillCircuit& a) { kill_circuit(a.circuit); },
                 [&](pump::Violation& a) {
                   ++counters.protocol_violations;
                   log(LogLevel::Info, std::string("stream protocol violation: ") + a.what);
                 },
             },
             action);
}

}  // namespace conflux::exit
