#include "conflux/proto/conflux_delivery_proof.hpp"

#include "conflux/proto/flow_control.hpp"

namespace conflux::proto {

void DeliveryProof::on_sent(StreamId stream, cell::RelayCommand command, SeqAbs seq) {
  if (stream == StreamId{0}) return;
  if (command == cell::RelayCommand::End) {
    // The stream is over for us; what it proved stays proven, and a new
    // stream with this ID starts counting afresh.
    streams_.erase(stream.value());
    return;
  }
  if (command != cell::RelayCommand::Sendme) return;
  auto it = streams_.find(stream.value());
  if (it == streams_.end()) {
    if (streams_.size() >= kMaxStreams) return;
    it = streams_.emplace(stream.value(), Stream{}).first;
  }
  Stream& s = it->second;
  ++s.sendmes_sent;
  s.pending.push_back(Stream::Pending{s.sendmes_sent, seq});
  if (s.pending.size() > kMaxPendingPerStream) s.pending.pop_front();
}

std::optional<SeqAbs> DeliveryProof::on_delivered(StreamId stream, cell::RelayCommand command) {
  if (stream == StreamId{0}) return std::nullopt;
  auto it = streams_.find(stream.value());
  if (command == cell::RelayCommand::End) {
    if (it != streams_.end()) streams_.erase(it);
    return std::nullopt;
  }
  if (command != cell::RelayCommand::Data) return std::nullopt;
  if (it == streams_.end()) {
    if (streams_.size() >= kMaxStreams) return std::nullopt;
    it = streams_.emplace(stream.value(), Stream{}).first;
  }
  Stream& s = it->second;
  ++s.data_in;
  if (s.data_in <= kStreamWindow.start) return std::nullopt;
  // Our SENDMEs the peer must have processed to send this many cells.
  const std::uint64_t proven = (s.data_in - kStreamWindow.start + kStreamWindow.increment - 1) / kStreamWindow.increment;
  std::optional<SeqAbs> out;
  while (!s.pending.empty() && s.pending.front().ordinal <= proven) {
    out = s.pending.front().seq;
    s.pending.pop_front();
  }
  return out;
}

}  // namespace conflux::proto
