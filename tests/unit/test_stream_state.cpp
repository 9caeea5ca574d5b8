// The stream state machine (tor-spec 6.2, 6.3, 7.4): what each relay command
// may do in each state, END both ways, half-closed streams, stream windows.
#include <catch2/catch.hpp>

#include "conflux/proto/stream_state.hpp"

using namespace conflux;
using namespace conflux::proto;
using cell::EndReason;

TEST_CASE("exit: BEGIN, optimistic data, CONNECTED, DATA, END from the edge", "[stream]") {
  auto s = StreamMachine::exit_stream(StreamKind::Connect);
  CHECK(s.state() == StreamState::Connecting);
  // Optimistic data: delivered (queued by the caller until connected).
  auto a = s.on_data();
  CHECK(a.deliver_data);
  CHECK_FALSE(a.violation.has_value());
  CHECK(s.data_sent().error() == StreamSendError::NotOpen);  // exit sends nothing before CONNECTED

  a = s.connect_succeeded();
  CHECK(a.send_connected);
  CHECK(s.state() == StreamState::Open);
  CHECK(s.on_data().deliver_data);
  CHECK(*s.data_sent() == WindowStatus::Open);

  a = s.edge_closed();
  REQUIRE(a.send_end.has_value());
  CHECK(*a.send_end == EndReason::Done);
  CHECK(a.close_edge);
  CHECK(s.state() == StreamState::EndSent);
  CHECK(s.data_sent().error() == StreamSendError::NotOpen);
  CHECK(s.edge_closed().send_end == std::nullopt);  // only one END

  // In-flight DATA from the client is absorbed, then its END closes.
  a = s.on_data();
  CHECK(a.dropped);
  CHECK_FALSE(a.deliver_data);
  a = s.on_end(EndReason::Done);
  CHECK(s.state() == StreamState::Closed);
  CHECK_FALSE(a.close_edge);
  CHECK(a.peer_end == EndReason::Done);
  CHECK(s.on_data().dropped);
}

TEST_CASE("exit: connect failure sends END with the reason", "[stream]") {
  auto s = StreamMachine::exit_stream(StreamKind::Connect);
  auto a = s.connect_failed(EndReason::ExitPolicy);
  CHECK(a.send_end == EndReason::ExitPolicy);
  CHECK(s.state() == StreamState::EndSent);
  CHECK_FALSE(s.connect_succeeded().send_connected);  // too late
}

TEST_CASE("exit: END from the client closes the edge, nothing is sent back", "[stream]") {
  auto s = StreamMachine::exit_stream(StreamKind::Connect);
  (void)s.connect_succeeded();
  auto a = s.on_end(EndReason::Misc);
  CHECK(a.close_edge);
  CHECK_FALSE(a.send_end.has_value());
  CHECK(s.state() == StreamState::Closed);
  CHECK(s.edge_closed().send_end == std::nullopt);
}

TEST_CASE("exit: client-bound commands are refused", "[stream]") {
  auto s = StreamMachine::exit_stream(StreamKind::Connect);
  (void)s.connect_succeeded();
  auto a = s.on_connected();
  CHECK(a.violation == StreamViolation::UnexpectedCommand);
  CHECK(a.scope == ViolationScope::Stream);
  CHECK(a.send_end == EndReason::TorProtocol);
  CHECK(s.state() == StreamState::EndSent);

  auto t = StreamMachine::exit_stream(StreamKind::Connect);
  CHECK(t.on_resolved().violation == StreamViolation::UnexpectedCommand);
  auto u = StreamMachine::exit_stream(StreamKind::Dir);
  CHECK(u.on_other(cell::RelayCommand::Begin).dropped);  // tor drops BEGIN for a known stream
  CHECK(u.state() == StreamState::Connecting);
}

TEST_CASE("client: DATA before CONNECTED is a protocol error", "[stream]") {
  auto s = StreamMachine::client_stream(StreamKind::Connect);
  CHECK(s.state() == StreamState::Connecting);
  auto a = s.on_data();
  CHECK(a.violation == StreamViolation::DataBeforeConnected);
  CHECK(a.scope == ViolationScope::Stream);
  CHECK_FALSE(a.deliver_data);
  CHECK(a.send_end == EndReason::Misc);  // a client never tells the exit why
  CHECK(a.close_edge);
  CHECK(s.state() == StreamState::EndSent);
}

TEST_CASE("client: CONNECTED opens once, END from the exit closes", "[stream]") {
  auto s = StreamMachine::client_stream(StreamKind::Connect);
  CHECK(*s.data_sent() == WindowStatus::Open);  // optimistic data
  auto a = s.on_connected();
  CHECK(a.opened);
  CHECK(s.state() == StreamState::Open);
  CHECK(s.on_data().deliver_data);
  a = s.on_connected();
  CHECK(a.violation == StreamViolation::DuplicateConnected);
  CHECK(s.state() == StreamState::EndSent);

  auto t = StreamMachine::client_stream(StreamKind::Connect);
  a = t.on_end(EndReason::ConnectRefused);
  CHECK(a.peer_end == EndReason::ConnectRefused);
  CHECK(a.close_edge);
  CHECK(t.state() == StreamState::Closed);

  auto u = StreamMachine::client_stream(StreamKind::Connect);
  (void)u.on_connected();
  CHECK(u.on_resolved().violation == StreamViolation::UnexpectedResolved);

  auto v = StreamMachine::client_stream(StreamKind::Connect);
  (void)v.on_connected();
  CHECK(v.edge_closed(EndReason::Done).send_end == EndReason::Misc);
}

TEST_CASE("client: RESOLVE streams", "[stream]") {
  auto s = StreamMachine::client_stream(StreamKind::Resolve);
  CHECK(s.state() == StreamState::Resolving);
  CHECK(s.data_sent().error() == StreamSendError::NotOpen);
  auto a = s.on_resolved();
  CHECK(a.deliver_resolved);
  CHECK_FALSE(a.send_end.has_value());
  CHECK(s.state() == StreamState::Closed);

  auto t = StreamMachine::client_stream(StreamKind::Resolve);
  CHECK(t.on_data().violation == StreamViolation::UnexpectedCommand);
  auto u = StreamMachine::client_stream(StreamKind::Resolve);
  CHECK(u.on_connected().violation == StreamViolation::UnexpectedCommand);
  auto w = StreamMachine::client_stream(StreamKind::Resolve);
  CHECK(w.on_end(EndReason::ResolveFailed).peer_end == EndReason::ResolveFailed);
  CHECK(w.state() == StreamState::Closed);
}

TEST_CASE("stream SENDMEs: one per 50 DATA cells, deferrable", "[stream][flow]") {
  auto s = StreamMachine::exit_stream(StreamKind::Connect);
  (void)s.connect_succeeded();
  for (int i = 1; i < 50; ++i) CHECK_FALSE(s.on_data().send_sendme);
  CHECK(s.on_data().send_sendme);
  CHECK(s.deliver_window() == CellCount{500});

  // Backlogged edge: the SENDME waits until the caller says it drained.
  for (int i = 1; i < 50; ++i) REQUIRE_FALSE(s.on_data(true).send_sendme);
  CHECK_FALSE(s.on_data(true).send_sendme);
  CHECK(s.deliver_window() == CellCount{450});
  CHECK(s.take_deferred_sendme());
  CHECK_FALSE(s.take_deferred_sendme());
  CHECK(s.deliver_window() == CellCount{500});
}

TEST_CASE("stream package window and SENDME overflow", "[stream][flow]") {
  auto s = StreamMachine::exit_stream(StreamKind::Connect);
  (void)s.connect_succeeded();
  for (int i = 1; i < 500; ++i) REQUIRE(*s.data_sent() == WindowStatus::Open);
  CHECK(*s.data_sent() == WindowStatus::Exhausted);
  CHECK(s.data_sent().error() == StreamSendError::WindowEmpty);
  auto a = s.on_sendme();
  CHECK(a.resume_reading);
  CHECK(s.package_window() == CellCount{50});
  CHECK_FALSE(s.on_sendme().resume_reading);

  auto t = StreamMachine::exit_stream(StreamKind::Connect);
  (void)t.connect_succeeded();
  a = t.on_sendme();  // nothing sent: the window would exceed 500
  CHECK(a.violation == StreamViolation::FlowControl);
  CHECK(a.flow_error == FlowError::UnexpectedSendme);
  CHECK(a.closes_circuit());
  CHECK(t.state() == StreamState::Closed);
}

TEST_CASE("stream deliver window underflow kills the circuit", "[stream][flow]") {
  auto s = StreamMachine::client_stream(StreamKind::Connect);
  (void)s.on_connected();
  for (int i = 0; i < 500; ++i) REQUIRE(s.on_data(true).deliver_data);
  auto a = s.on_data(true);
  CHECK(a.flow_error == FlowError::DeliverWindowUnderflow);
  CHECK(a.closes_circuit());
  CHECK_FALSE(a.deliver_data);
}

TEST_CASE("half-closed: only what was in flight is absorbed after our END", "[stream]") {
  SECTION("DATA up to our deliver window") {
    auto s = StreamMachine::exit_stream(StreamKind::Connect);
    (void)s.connect_succeeded();
    for (int i = 0; i < 10; ++i) REQUIRE(s.on_data().deliver_data);
    (void)s.edge_closed();
    for (int i = 0; i < 490; ++i) REQUIRE(s.on_data().dropped);
    auto a = s.on_data();
    CHECK(a.violation == StreamViolation::TooMuchAfterEnd);
    CHECK(a.closes_circuit());
  }
  SECTION("the SENDMEs the peer still owed us") {
    auto s = StreamMachine::exit_stream(StreamKind::Connect);
    (void)s.connect_succeeded();
    for (int i = 0; i < 100; ++i) REQUIRE(s.data_sent().has_value());
    (void)s.edge_closed();
    CHECK(s.on_sendme().dropped);
    CHECK(s.on_sendme().dropped);
    CHECK(s.on_sendme().violation == StreamViolation::TooMuchAfterEnd);
  }
  SECTION("a CONNECTED we were waiting for, once") {
    auto s = StreamMachine::client_stream(StreamKind::Connect);
    (void)s.edge_closed();
    CHECK(s.on_connected().dropped);
    CHECK(s.on_connected().violation == StreamViolation::TooMuchAfterEnd);
  }
  SECTION("a CONNECTED we were not waiting for") {
    auto s = StreamMachine::client_stream(StreamKind::Connect);
    (void)s.on_connected();
    (void)s.edge_closed();
    CHECK(s.on_connected().closes_circuit());
  }
  SECTION("a RESOLVED we were waiting for") {
    auto s = StreamMachine::client_stream(StreamKind::Resolve);
    (void)s.edge_closed();
    CHECK(s.on_resolved().dropped);
    CHECK(s.on_resolved().closes_circuit());
  }
}

TEST_CASE("congestion-controlled circuits: no stream SENDMEs", "[stream]") {
  StreamMachine::Options cc{false};
  auto s = StreamMachine::exit_stream(StreamKind::Connect, cc);
  (void)s.connect_succeeded();
  for (int i = 0; i < 600; ++i) REQUIRE(*s.data_sent() == WindowStatus::Open);
  for (int i = 0; i < 600; ++i) REQUIRE_FALSE(s.on_data().send_sendme);
  auto a = s.on_sendme();
  CHECK(a.violation == StreamViolation::StreamSendmeWithCc);
  CHECK(a.closes_circuit());
}
