#include "conflux/proto/stream_state.hpp"

namespace conflux::proto {

const char* to_string(StreamViolation v) noexcept {
  switch (v) {
    case StreamViolation::DataBeforeConnected: return "DATA before CONNECTED";
    case StreamViolation::DuplicateConnected: return "second CONNECTED";
    case StreamViolation::UnexpectedCommand: return "relay command not allowed in this stream state";
    case StreamViolation::UnexpectedResolved: return "RESOLVED on a connect stream";
    case StreamViolation::TooMuchAfterEnd: return "more cells after END than were in flight";
    case StreamViolation::StreamSendmeWithCc: return "stream SENDME on a congestion-controlled circuit";
    case StreamViolation::FlowControl: return "stream flow-control violation";
  }
  return "unknown stream violation";
}

StreamMachine::StreamMachine(StreamRole role, StreamKind kind, StreamState state, Options options)
    : role_(role), kind_(kind), state_(state), options_(options) {}

StreamMachine StreamMachine::exit_stream(StreamKind kind) { return exit_stream(kind, Options{}); }
StreamMachine StreamMachine::exit_stream(StreamKind kind, Options options) {
  return StreamMachine(StreamRole::Exit, kind, StreamState::Connecting, options);
}
StreamMachine StreamMachine::client_stream(StreamKind kind) { return client_stream(kind, Options{}); }
StreamMachine StreamMachine::client_stream(StreamKind kind, Options options) {
  const StreamState s = kind == StreamKind::Resolve ? StreamState::Resolving : StreamState::Connecting;
  return StreamMachine(StreamRole::Client, kind, s, options);
}

StreamActions StreamMachine::send_end_now(cell::EndReason why, StreamActions a) {
  // Remember what the peer may still have in flight towards us.
  data_allowance_ = static_cast<std::uint32_t>(deliver_.remaining().value());
  sendme_allowance_ = static_cast<std::uint32_t>(
      (kStreamWindow.start - package_.remaining().value()) / kStreamWindow.increment);
  connected_allowed_ = role_ == StreamRole::Client && state_ == StreamState::Connecting;
  resolved_allowed_ = role_ == StreamRole::Client && state_ == StreamState::Resolving;
  a.send_end = role_ == StreamRole::Client ? cell::EndReason::Misc : why;
  a.close_edge = true;
  state_ = StreamState::EndSent;
  return a;
}

StreamActions StreamMachine::violation(StreamViolation v, ViolationScope scope, StreamActions a) {
  a.violation = v;
  a.scope = scope;
  const bool live = state_ == StreamState::Connecting || state_ == StreamState::Resolving ||
                    state_ == StreamState::Open;
  if (scope == ViolationScope::Stream && live) return send_end_now(cell::EndReason::TorProtocol, a);
  // The circuit goes down; so does every stream on it.
  a.scope = ViolationScope::Circuit;
  a.close_edge = state_ != StreamState::EndSent && state_ != StreamState::Closed;
  state_ = StreamState::Closed;
  return a;
}

StreamActions StreamMachine::flow_violation(FlowError e) {
  StreamActions a;
  a.flow_error = e;
  return violation(StreamViolation::FlowControl, ViolationScope::Circuit, a);
}

StreamActions StreamMachine::connect_succeeded() {
  StreamActions a;
  if (role_ != StreamRole::Exit || state_ != StreamState::Connecting) return a;
  state_ = StreamState::Open;
  a.send_connected = true;
  return a;
}

StreamActions StreamMachine::connect_failed(cell::EndReason why) {
  if (role_ != StreamRole::Exit || state_ != StreamState::Connecting) return {};
  return send_end_now(why, {});
}

StreamActions StreamMachine::edge_closed(cell::EndReason why) {
  if (state_ == StreamState::EndSent || state_ == StreamState::Closed) return {};
  return send_end_now(why, {});
}

Result<WindowStatus, StreamSendError> StreamMachine::data_sent() {
  const bool optimistic = role_ == StreamRole::Client && state_ == StreamState::Connecting;
  if (state_ != StreamState::Open && !optimistic) return Unexpected{StreamSendError::NotOpen};
  if (!options_.sendme_windows) return WindowStatus::Open;
  auto r = package_.on_data_sent();
  if (!r) return Unexpected{StreamSendError::WindowEmpty};
  return *r;
}

bool StreamMachine::take_deferred_sendme() {
  if (!options_.sendme_windows) return false;
  if (state_ != StreamState::Connecting && state_ != StreamState::Open) return false;
  return deliver_.take_sendme();
}

StreamActions StreamMachine::on_data(bool edge_backlogged) {
  StreamActions a;
  switch (state_) {
    case StreamState::Closed:
      a.dropped = true;
      return a;
    case StreamState::EndSent:
      if (!options_.sendme_windows) {
        a.dropped = true;  // congestion control bounds it at circuit level, as tor's half-edges
        return a;
      }
      if (data_allowance_ == 0) return violation(StreamViolation::TooMuchAfterEnd, ViolationScope::Circuit);
      --data_allowance_;
      a.dropped = true;
      return a;
    case StreamState::Resolving:
      return violation(StreamViolation::UnexpectedCommand, ViolationScope::Stream);
    case StreamState::Connecting:
      if (role_ == StreamRole::Client) {
        return violation(StreamViolation::DataBeforeConnected, ViolationScope::Stream);
      }
      break;  // exit: optimistic data
    case StreamState::Open:
      break;
  }
  if (options_.sendme_windows) {
    auto due = deliver_.on_data_received();
    if (!due) return flow_violation(due.error());
    if (*due && !edge_backlogged) a.send_sendme = deliver_.take_sendme();
  }
  a.deliver_data = true;
  return a;
}

StreamActions StreamMachine::on_sendme() {
  StreamActions a;
  if (state_ == StreamState::Closed) {
    a.dropped = true;
    return a;
  }
  if (!options_.sendme_windows) return violation(StreamViolation::StreamSendmeWithCc, ViolationScope::Circuit);
  switch (state_) {
    case StreamState::EndSent:
      if (sendme_allowance_ == 0) return violation(StreamViolation::TooMuchAfterEnd, ViolationScope::Circuit);
      --sendme_allowance_;
      a.dropped = true;
      return a;
    case StreamState::Resolving:
      return violation(StreamViolation::UnexpectedCommand, ViolationScope::Stream);
    default:
      break;
  }
  const bool was_blocked = !package_.can_send();
  auto r = package_.on_sendme();
  if (!r) return flow_violation(r.error());
  a.resume_reading = was_blocked;
  return a;
}

StreamActions StreamMachine::on_connected() {
  StreamActions a;
  switch (state_) {
    case StreamState::Closed:
      a.dropped = true;
      return a;
    case StreamState::EndSent:
      if (!connected_allowed_) return violation(StreamViolation::TooMuchAfterEnd, ViolationScope::Circuit);
      connected_allowed_ = false;
      a.dropped = true;
      return a;
    default:
      break;
  }
  if (role_ == StreamRole::Exit || state_ == StreamState::Resolving) {
    return violation(StreamViolation::UnexpectedCommand, ViolationScope::Stream);
  }
  if (state_ == StreamState::Open) return violation(StreamViolation::DuplicateConnected, ViolationScope::Stream);
  state_ = StreamState::Open;
  a.opened = true;
  return a;
}

StreamActions StreamMachine::on_resolved() {
  StreamActions a;
  switch (state_) {
    case StreamState::Closed:
      a.dropped = true;
      return a;
    case StreamState::EndSent:
      if (!resolved_allowed_) return violation(StreamViolation::TooMuchAfterEnd, ViolationScope::Circuit);
      resolved_allowed_ = false;
      a.dropped = true;
      return a;
    default:
      break;
  }
  if (role_ == StreamRole::Exit) return violation(StreamViolation::UnexpectedCommand, ViolationScope::Stream);
  if (state_ != StreamState::Resolving) {
    return violation(StreamViolation::UnexpectedResolved, ViolationScope::Stream);
  }
  // A resolve is one request and one answer: nothing to END.
  state_ = StreamState::Closed;
  a.deliver_resolved = true;
  return a;
}

StreamActions StreamMachine::on_end(cell::EndReason reason) {
  StreamActions a;
  if (state_ == StreamState::Closed) {
    a.dropped = true;
    return a;
  }
  a.peer_end = reason;
  a.close_edge = state_ != StreamState::EndSent;
  state_ = StreamState::Closed;
  return a;
}

StreamActions StreamMachine::on_other(cell::RelayCommand /*cmd*/) {
  StreamActions a;
  a.dropped = true;
  return a;
}

}  // namespace conflux::proto
