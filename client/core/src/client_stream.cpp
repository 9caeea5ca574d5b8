#include "conflux/client/client_stream.hpp"

#include <algorithm>

#include "conflux/cell/relay_header.hpp"

namespace conflux::client {

ClientStream::ClientStream(const net::asio::any_io_executor& ex, proto::StreamKind kind, const net::Clock& clock)
    : kind_(kind), clock_(clock), machine_(proto::StreamMachine::client_stream(kind)), wake_(ex), tx_wake_(ex) {}

ClientStream::~ClientStream() { close(cell::EndReason::Done); }

bool ClientStream::open_on(StreamCarrier& c, const cell::RelayMsg& opening) {
  if (circuit_ != nullptr) return false;
  auto id = c.attach(*this);
  if (!id) return false;
  circuit_ = &c;
  id_ = *id;
  if (const proto::CcParams* params = c.congestion_control()) {
    // prop 324: no stream SENDMEs on this circuit, XON/XOFF instead.
    machine_ = proto::StreamMachine::client_stream(kind_, proto::StreamMachine::Options{false});
    deliver_flow_.emplace(*params, proto::StreamEdge::ClientToExit, proto::process_clock_health());
    package_flow_.emplace(*params, proto::StreamEdge::ClientToExit);
  }
  if (!c.send(id_, opening)) {
    detach();
    return false;
  }
  return true;
}

void ClientStream::detach() {
  if (circuit_ == nullptr) return;
  StreamCarrier* c = circuit_;
  circuit_ = nullptr;
  c->detach(id_);
}

void ClientStream::close(cell::EndReason why) {
  if (circuit_ == nullptr) return;
  const auto state = machine_.state();
  if (state == proto::StreamState::Connecting || state == proto::StreamState::Open ||
      state == proto::StreamState::Resolving) {
    auto a = machine_.edge_closed(why);
    if (a.send_end) (void)circuit_->send(id_, cell::EndMsg{*a.send_end, std::nullopt});
  }
  detach();
}

void ClientStream::on_circuit_closed(std::string_view why) {
  circuit_ = nullptr;
  circuit_gone_ = std::string(why);
  notify();
}

std::vector<std::uint8_t> ClientStream::take_received(std::size_t max) {
  std::vector<std::uint8_t> out;
  while (!inbound_.empty() && out.size() < max) {
    auto& front = inbound_.front();
    const std::size_t n = std::min(max - out.size(), front.size() - front_offset_);
    out.insert(out.end(), front.begin() + static_cast<std::ptrdiff_t>(front_offset_),
               front.begin() + static_cast<std::ptrdiff_t>(front_offset_ + n));
    front_offset_ += n;
    if (front_offset_ == front.size()) {
      inbound_.pop_front();
      front_offset_ = 0;
    }
  }
  inbound_bytes_ -= out.size();
  if (deliver_flow_ && !out.empty() && circuit_ != nullptr)
    send_flow(deliver_flow_->on_drained(clock_.now(), out.size(), inbound_bytes_));
  // Every SENDME held back goes now, not one per call: the application may
  // take everything at once and then wait for more, which the exit sends
  // only against these SENDMEs (tor's connection_edge_consider_sending_sendme
  // loops too).
  std::size_t sendmes = 0;
  while (circuit_ != nullptr && inbound_bytes_ < kBackloggedBytes && machine_.take_deferred_sendme()) ++sendmes;
  send_sendmes(sendmes);
  return out;
}

bool ClientStream::can_send_data() const {
  if (package_flow_ && !package_flow_->may_package()) return false;  // the exit's XOFF
  return circuit_ != nullptr && connected_ && machine_.state() == proto::StreamState::Open &&
         machine_.package_window().value() > 0 && circuit_->can_send_data();
}

bool ClientStream::send_data(bytes::ByteSpan data) {
  if (!can_send_data() || data.empty() || data.size() > cell::kRelayBodyMaxLen) return false;
  // The window is charged once the cell went out: a carrier may refuse it
  // (a Conflux set's retransmit buffer full, a queue full) and the caller
  // then offers the same bytes again. Charged before, each refusal cost a
  // cell of window that no SENDME ever gives back, until the stream stalled
  // for good. can_send_data() has checked the state and the window.
  if (!circuit_->send(id_, cell::DataMsg{{data.begin(), data.end()}})) return false;
  (void)machine_.data_sent();
  if (package_flow_) package_flow_->on_data_packaged(static_cast<std::uint32_t>(data.size()));
  bytes_sent_ += data.size();
  return true;
}

void ClientStream::on_circuit_writable() {
  retry_owed();
  notify();
}

void ClientStream::on_stream_msg(const cell::RelayMsg& msg) {
  // The carrier works again: what it refused before goes first.
  if (flow_owed()) retry_owed();
  proto::StreamActions a;
  if (std::holds_alternative<cell::ConnectedMsg>(msg)) {
    a = machine_.on_connected();
  } else if (const auto* d = std::get_if<cell::DataMsg>(&msg)) {
    a = machine_.on_data(inbound_bytes_ >= kBackloggedBytes);
    if (a.deliver_data && !d->data.empty()) on_received(*d);
  } else if (package_flow_ && (std::holds_alternative<cell::XoffMsg>(msg) || std::holds_alternative<cell::XonMsg>(msg))) {
    return on_flow_msg(msg);
  } else if (const auto* e = std::get_if<cell::EndMsg>(&msg)) {
    a = machine_.on_end(e->reason);
  } else if (std::holds_alternative<cell::SendmeMsg>(msg)) {
    a = machine_.on_sendme();
  } else if (const auto* r = std::get_if<cell::ResolvedMsg>(&msg)) {
    a = machine_.on_resolved();
    if (a.deliver_resolved) resolved_ = *r;
  } else {
    a = machine_.on_other(cell::command_of(msg));
  }
  act(a);
}

void ClientStream::on_received(const cell::DataMsg& d) {
  inbound_.push_back(d.data);
  inbound_bytes_ += d.data.size();
  bytes_received_ += d.data.size();
  if (!deliver_flow_ || circuit_ == nullptr) return;
  if (inbound_bytes_ > kMaxBufferedBytes) {
    // The exit went on long after our XOFF: tor's answer to a peer that
    // breaks stream flow control is to close the stream.
    violation_ = true;
    auto end = machine_.edge_closed(cell::EndReason::TorProtocol);
    if (end.send_end) (void)circuit_->send(id_, cell::EndMsg{*end.send_end, std::nullopt});
    detach();
    return;
  }
  send_flow(deliver_flow_->on_data_buffered(clock_.now(), inbound_bytes_));
}

// XOFF stops our sending, XON resumes it. Suspicious ones (more than we
// sent could explain) are obeyed all the same, as tor does.
void ClientStream::on_flow_msg(const cell::RelayMsg& msg) {
  if (std::holds_alternative<cell::XoffMsg>(msg)) {
    (void)package_flow_->on_xoff();
  } else {
    (void)package_flow_->on_xon(std::get<cell::XonMsg>(msg), clock_.now());
  }
  notify();
}

// StreamDeliverFlow has counted the message as sent (an XON clears its
// XOFF state): refused, it is owed until the carrier takes it. Only the
// latest decision matters, as the exit acts only on the last one it got.
void ClientStream::send_flow(const std::optional<proto::StreamFlowMsg>& m) {
  if (!m || circuit_ == nullptr) return;
  owed_flow_ = *m;
  retry_owed();
}

void ClientStream::send_sendmes(std::size_t n) {
  if (n == 0 || circuit_ == nullptr) return;
  owed_sendmes_ += n;
  retry_owed();
}

void ClientStream::retry_owed() {
  if (circuit_ == nullptr) return;
  if (owed_flow_) {
    const bool xoff = std::holds_alternative<cell::XoffMsg>(*owed_flow_);
    if (xoff && exit_stopped_) {
      owed_flow_.reset();  // an XOFF after an XON that never went: the exit is stopped already
    } else {
      const cell::RelayMsg msg = std::visit([](const auto& f) { return cell::RelayMsg{f}; }, *owed_flow_);
      if (!circuit_->send(id_, msg)) return;
      exit_stopped_ = xoff;
      owed_flow_.reset();
    }
  }
  // The send may have closed the carrier (on_circuit_closed cleared it).
  while (owed_sendmes_ > 0 && circuit_ != nullptr && circuit_->send(id_, cell::SendmeMsg{})) --owed_sendmes_;
}

void ClientStream::act(const proto::StreamActions& a) {
  if (a.opened) connected_ = true;
  if (a.peer_end) peer_end_ = a.peer_end;
  if (circuit_ != nullptr) {
    if (a.closes_circuit()) {
      violation_ = true;
      StreamCarrier* c = circuit_;
      detach();
      c->close(cell::DestroyReason::Protocol, "stream protocol violation");
    } else {
      if (a.violation) violation_ = true;
      if (a.send_end) (void)circuit_->send(id_, cell::EndMsg{*a.send_end, std::nullopt});
      // The END may have closed the carrier (on_circuit_closed cleared it).
      if (a.send_sendme) send_sendmes(1);
    }
  }
  if (machine_.state() == proto::StreamState::Closed) detach();
  notify();
}

std::string ClientStream::describe() const {
  std::string out = "stream " + std::to_string(id_.value()) + " sent=" + std::to_string(bytes_sent_) +
                    " received=" + std::to_string(bytes_received_) + " pending=" + std::to_string(inbound_bytes_) +
                    " can_send_data=" + std::to_string(can_send_data()) + " owed=" + std::to_string(flow_owed());
  if (deliver_flow_)
    out += " | we_xoffed=" + std::to_string(deliver_flow_->xoff_sent()) +
           " xoffs_sent=" + std::to_string(deliver_flow_->xoffs_sent()) +
           " xons_sent=" + std::to_string(deliver_flow_->xons_sent()) +
           " drain_kbps=" + std::to_string(deliver_flow_->drain_rate_kbps()) +
           " last_sent_kbps=" + std::to_string(deliver_flow_->last_sent_rate_kbps());
  if (package_flow_)
    out += " | exit_xoffed=" + std::to_string(!package_flow_->may_package()) +
           " xoffs_recv=" + std::to_string(package_flow_->xoffs_received()) +
           " xons_recv=" + std::to_string(package_flow_->xons_received());
  out += " | " + (circuit_ != nullptr ? circuit_->describe_flow() : std::string("no carrier"));
  return out;
}

}  // namespace conflux::client
