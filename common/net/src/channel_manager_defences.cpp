// ChannelManager's side of the DoS defences (proto::DosGuard decides) and of
// MaxMemInQueues (proto::QueueLimit decides): where the runtime asks them
// and carries out their answers.
#include <algorithm>
#include <array>

#include "conflux/net/channel_manager.hpp"

namespace conflux::net {
namespace {

proto::DosAddress dos_address(const asio::ip::address& a) {
  if (a.is_v4()) return proto::dos_address_v4(a.to_v4().to_bytes());
  const auto v6 = a.to_v6();
  if (v6.is_v4_mapped()) return proto::dos_address_v4(asio::ip::make_address_v4(asio::ip::v4_mapped, v6).to_bytes());
  proto::DosAddress out{};
  const auto bytes = v6.to_bytes();
  std::copy(bytes.begin(), bytes.end(), out.begin());
  return out;
}

bool is_create(cell::CellCommand c) {
  return c == cell::CellCommand::Create || c == cell::CellCommand::Create2 || c == cell::CellCommand::CreateFast;
}

}  // namespace

std::uint64_t ChannelManager::dos_now() const {
  // Whole seconds of the one injected clock; never 0 (the guard's "never").
  return static_cast<std::uint64_t>(
             std::chrono::duration_cast<std::chrono::seconds>(clock_.now().time_since_epoch()).count()) +
         1;
}

void ChannelManager::set_dos_params(const proto::DosParams& params) {
  config_.dos = params;
  dos_.set_params(params);
}

void ChannelManager::set_relay_addresses(std::vector<proto::DosAddress> addresses) {
  dos_.set_relay_addresses(std::move(addresses));
}

bool ChannelManager::set_bandwidth(std::uint64_t rate, std::uint64_t burst) {
  if (!bucket_ || rate == 0) return false;
  bucket_->adjust(rate, burst, clock_.now());
  config_.bandwidth_rate = rate;
  config_.bandwidth_burst = burst;
  return true;
}

void ChannelManager::set_max_mem_in_queues(std::uint64_t bytes) {
  config_.max_mem_in_queues = bytes;
  queue_limit_.set_max(bytes);
  check_queue_memory();
}

bool ChannelManager::dos_accept(const tcp::socket& socket, std::optional<proto::DosAddress>& peer) {
  boost::system::error_code ec;
  const auto remote = socket.remote_endpoint(ec);
  if (ec) return true;  // gone already: the handshake will fail on its own
  peer = dos_address(remote.address());
  if (dos_.accept_connection(*peer, dos_now())) return true;
  ++counters_.dos_connections_refused;
  return false;
}

void ChannelManager::dos_channel_open(Entry& e) {
  // A client: it connected to us and did not prove a relay identity (tor's
  // channel_is_client). Relays listed in the consensus are skipped by the guard.
  e.client = !e.outbound && !e.identity && e.peer.has_value();
  if (e.client) e.dos_counted = dos_.client_connection_opened(*e.peer, dos_now());
}

bool ChannelManager::dos_refuse_create(std::uint64_t chan, const Entry& e, const cell::CellView& c) {
  if (!is_create(c.command) || !e.peer) return false;
  if (!dos_.refuse_create(*e.peer, dos_now())) return false;
  // tor answers DESTROY with RESOURCELIMIT and keeps nothing of the circuit.
  send_destroy(chan, c.circ_id, cell::DestroyReason::ResourceLimit);
  return true;
}

void ChannelManager::dos_queue_filled(std::uint64_t chan, CircId circ) {
  // Only the queue towards the next hop counts against the client (tor's
  // dos_note_circ_max_outq): the client filled it with its own cells.
  auto handle = switch_.circuit_on(chan, circ);
  if (!handle) return;
  auto client = switch_.client_channel(*handle);
  if (!client || *client == chan) return;
  const Entry* e = find(*client);
  if (e != nullptr && e->client && e->peer) dos_.circuit_queue_filled(*e->peer, dos_now());
}

bool ChannelManager::dos_stream_allowed(const proto::DeliverStreamMessage& m) {
  const bool request = std::holds_alternative<cell::BeginMsg>(m.msg) || std::holds_alternative<cell::ResolveMsg>(m.msg);
  if (!request) return true;
  switch (dos_.stream_request(m.circuit, dos_now())) {
    case proto::StreamDosVerdict::Allow:
      return true;
    case proto::StreamDosVerdict::Refuse:
      (void)switch_.send_to_client(m.circuit, m.stream, cell::EndMsg{cell::EndReason::ResourceLimit, std::nullopt});
      return false;
    case proto::StreamDosVerdict::CloseCircuit:
      switch_.close_circuit(m.circuit, cell::DestroyReason::ResourceLimit);
      return false;
  }
  return true;
}

std::size_t ChannelManager::queued_total() const {
  return gauge_->bytes + gauge_->channel_buffer_bytes + (exit_ != nullptr ? exit_->buffered_bytes() : 0);
}

void ChannelManager::check_queue_memory() {
  if (queue_limit_.max() == 0 || oom_running_ || !queue_limit_.over(queued_total())) return;
  oom_running_ = true;
  ++counters_.oom_runs;
  std::vector<proto::QueuedCircuit> queues;
  for (const auto& [id, e] : channels_) {
    auto q = e.link->channel().mux().queued_circuits(id);
    queues.insert(queues.end(), q.begin(), q.end());
  }
  // The exit's stream buffers, as tor counts its connections' buffers, and
  // the Conflux sets' reorder queues. The channels' own buffers count in
  // the total but close with no circuit (tor closes no OR connection).
  if (exit_ != nullptr)
    for (const auto& b : exit_->buffered_circuits()) queues.push_back({0, CircId{}, 0, b.oldest, b.circuit, b.bytes});
  const std::size_t before = queued_total();
  const auto plan = queue_limit_.plan(before, std::move(queues));
  std::size_t killed = 0;
  for (const auto& v : plan.victims) {
    // Closing a circuit frees its queues on both its channels: the gauge,
    // not the plan's estimate, says when enough is free.
    if (queued_total() <= plan.target) break;
    if (v.handle != 0 && exit_ != nullptr && exit_->close_for_memory(v.handle)) {  // a Conflux set
      ++killed;
      run_actions();
      continue;
    }
    auto handle = v.handle != 0 ? std::optional<proto::CircuitHandle>(v.handle) : switch_.circuit_on(v.channel, v.circ);
    if (handle && switch_.client_channel(*handle)) {  // still open (an earlier close may have taken it)
      switch_.close_circuit(*handle, cell::DestroyReason::ResourceLimit);
      ++killed;
    } else if (Entry* e = v.channel != 0 ? find(v.channel) : nullptr) {
      e->link->channel().mux().detach(v.circ);  // a queue no circuit owns any more
    }
    run_actions();  // the DESTROYs detach the queues; the exit drops the streams
  }
  counters_.oom_circuits_killed += killed;
  const std::size_t after = queued_total();
  counters_.oom_bytes_removed += before - std::min(before, after);
  log(LogLevel::Notice, "We're low on memory (cell queues, channel and stream buffers, Conflux reorder queues " +
                            std::to_string(before) +
                            " bytes, MaxMemInQueues " + std::to_string(queue_limit_.max()) + "): closed " +
                            std::to_string(killed) + " circuits with the oldest queued data, " + std::to_string(after) +
                            " bytes remain");
  oom_running_ = false;
}

}  // namespace conflux::net
