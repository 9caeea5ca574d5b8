// Classic SENDME windows (tor-spec 7.3, 7.4) and authenticated SENDME v1
// (prop 289): when SENDMEs go out, overflow/underflow violations, the tag FIFO.
#include <catch2/catch.hpp>

#include "conflux/proto/flow_control.hpp"
#include "conflux/proto/flow_control_sendme.hpp"
#include "sendme_test_support.hpp"

using namespace conflux;
using namespace conflux::proto;
using conflux::test::digest_for;
using conflux::test::v1;

TEST_CASE("circuit deliver window: a SENDME after every 100 DATA cells", "[flow]") {
  DeliverWindow w(kCircuitWindow);
  CHECK(w.remaining() == CellCount{1000});
  for (int i = 1; i <= 99; ++i) {
    auto r = w.on_data_received();
    REQUIRE(r.has_value());
    CHECK_FALSE(*r);
  }
  CHECK_FALSE(w.take_sendme());
  auto hundredth = w.on_data_received();
  REQUIRE(hundredth.has_value());
  CHECK(*hundredth);  // 1000 -> 900
  CHECK(w.remaining() == CellCount{900});
  CHECK(w.take_sendme());
  CHECK(w.remaining() == CellCount{1000});
  CHECK_FALSE(w.take_sendme());
}

TEST_CASE("deliver window below zero is a violation", "[flow]") {
  DeliverWindow w(kCircuitWindow);
  for (int i = 0; i < 1000; ++i) REQUIRE(w.on_data_received().has_value());  // never answered
  CHECK(w.remaining() == CellCount{0});
  auto r = w.on_data_received();
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() == FlowError::DeliverWindowUnderflow);
  CHECK(is_protocol_violation(r.error()));
  // Ten SENDMEs were owed; taking them reopens the window.
  int owed = 0;
  while (w.take_sendme()) ++owed;
  CHECK(owed == 10);
  CHECK(w.remaining() == CellCount{1000});
}

TEST_CASE("stream windows: 500, a SENDME per 50", "[flow]") {
  DeliverWindow d(kStreamWindow);
  for (int i = 1; i <= 49; ++i) CHECK_FALSE(*d.on_data_received());
  CHECK(*d.on_data_received());
  CHECK(d.remaining() == CellCount{450});
  CHECK(d.take_sendme());
  CHECK(d.remaining() == CellCount{500});

  PackageWindow p(kStreamWindow);
  CHECK_FALSE(p.on_sendme().has_value());  // would exceed 500
  for (int i = 1; i < 500; ++i) CHECK(*p.on_data_sent() == WindowStatus::Open);
  CHECK(*p.on_data_sent() == WindowStatus::Exhausted);
  CHECK_FALSE(p.can_send());
  CHECK(p.on_data_sent().error() == FlowError::PackageWindowEmpty);
  CHECK_FALSE(is_protocol_violation(FlowError::PackageWindowEmpty));
  CHECK(p.on_sendme().has_value());
  CHECK(p.remaining() == CellCount{50});
}

TEST_CASE("circuit package window: SENDME overflow is a violation", "[flow]") {
  PackageWindow p(kCircuitWindow);
  auto over = p.on_sendme();
  REQUIRE_FALSE(over.has_value());
  CHECK(over.error() == FlowError::UnexpectedSendme);
  for (int i = 0; i < 100; ++i) REQUIRE(p.on_data_sent().has_value());
  CHECK(p.remaining() == CellCount{900});
  CHECK(p.on_sendme().has_value());
  CHECK(p.remaining() == CellCount{1000});
  CHECK(p.on_sendme().error() == FlowError::UnexpectedSendme);
  for (int i = 0; i < 99; ++i) REQUIRE(p.on_data_sent().has_value());
  CHECK(p.on_sendme().error() == FlowError::UnexpectedSendme);  // 901 + 100 > 1000

  // A smaller initial window still allows SENDMEs up to 1000.
  PackageWindow small(kCircuitWindow, 500);
  CHECK(small.remaining() == CellCount{500});
  CHECK(small.on_sendme().has_value());
  CHECK(small.remaining() == CellCount{600});
}

TEST_CASE("SENDME v1: the receiver echoes the digest of the 100th cell", "[flow][sendme]") {
  CircuitSendmeReceiver rx;
  for (std::uint32_t n = 1; n <= 250; ++n) {
    auto r = rx.on_data_received(digest_for(n));
    REQUIRE(r.has_value());
    if (n % 100 == 0) {
      REQUIRE(r->has_value());
      REQUIRE((*r)->tag.has_value());
      CHECK((*r)->tag->len == 20);
      const auto want = digest_for(n);
      CHECK(std::equal(want.begin(), want.end(), (*r)->tag->bytes.begin()));
    } else {
      CHECK_FALSE(r->has_value());
    }
  }
  CHECK(rx.window() == CellCount{950});

  CircuitSendmeReceiver v0rx(SendmeConfig{false, false});
  for (std::uint32_t n = 1; n < 100; ++n) REQUIRE_FALSE(v0rx.on_data_received(digest_for(n))->has_value());
  auto r = v0rx.on_data_received(digest_for(100));
  REQUIRE(r->has_value());
  CHECK_FALSE((*r)->tag.has_value());
}

TEST_CASE("SENDME v1: the sender records every 100th cell and checks tags in order", "[flow][sendme]") {
  CircuitSendmeSender tx;
  for (std::uint32_t n = 1; n <= 1000; ++n) {
    auto r = tx.on_data_sent(digest_for(n));
    REQUIRE(r.has_value());
    CHECK(*r == (n == 1000 ? WindowStatus::Exhausted : WindowStatus::Open));
    CHECK(tx.pending_tags() == n / 100);
  }
  // The FIFO is bounded by the window: 10 tags, and nothing more can be sent.
  CHECK(tx.pending_tags() == kMaxPendingSendmeTags);
  CHECK_FALSE(tx.can_send());
  CHECK(tx.on_data_sent(digest_for(1001)).error() == FlowError::PackageWindowEmpty);
  CHECK(tx.pending_tags() == kMaxPendingSendmeTags);

  CHECK(tx.on_sendme(v1(digest_for(100))).has_value());
  CHECK(tx.window() == CellCount{100});
  CHECK(tx.on_sendme(v1(digest_for(200))).has_value());
  CHECK(tx.pending_tags() == 8);
  // Out of order: 400 where 300 is expected.
  auto bad = tx.on_sendme(v1(digest_for(400)));
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error() == FlowError::SendmeTagMismatch);
  CHECK(is_protocol_violation(bad.error()));
}

TEST_CASE("SENDME v1: missing, v0 and wrong-length tags", "[flow][sendme]") {
  SECTION("a SENDME with no outstanding tag") {
    CircuitSendmeSender tx;
    for (std::uint32_t n = 1; n <= 99; ++n) REQUIRE(tx.on_data_sent(digest_for(n)).has_value());
    CHECK(tx.pending_tags() == 0);
    CHECK(tx.on_sendme(v1(digest_for(99))).error() == FlowError::SendmeNoTagExpected);
    CHECK(tx.on_sendme(cell::SendmeMsg{}).error() == FlowError::SendmeNoTagExpected);
  }
  SECTION("v0 refused when v1 is required (the default)") {
    CircuitSendmeSender tx;
    for (std::uint32_t n = 1; n <= 100; ++n) REQUIRE(tx.on_data_sent(digest_for(n)).has_value());
    CHECK(tx.on_sendme(cell::SendmeMsg{}).error() == FlowError::SendmeTagRequired);
  }
  SECTION("v0 accepted when v1 is not required, and still consumes a tag") {
    CircuitSendmeSender tx(SendmeConfig{false, true});
    for (std::uint32_t n = 1; n <= 100; ++n) REQUIRE(tx.on_data_sent(digest_for(n)).has_value());
    CHECK(tx.on_sendme(cell::SendmeMsg{}).has_value());
    CHECK(tx.window() == CellCount{1000});
    CHECK(tx.on_sendme(cell::SendmeMsg{}).error() == FlowError::SendmeNoTagExpected);
  }
  SECTION("a 16-byte (CGO) tag on a tor1 circuit") {
    CircuitSendmeSender tx;
    for (std::uint32_t n = 1; n <= 100; ++n) REQUIRE(tx.on_data_sent(digest_for(n)).has_value());
    cell::SendmeMsg m = v1(digest_for(100));
    m.tag->len = 16;
    CHECK(tx.on_sendme(m).error() == FlowError::SendmeTagBadLength);
  }
  SECTION("one wrong byte") {
    CircuitSendmeSender tx;
    for (std::uint32_t n = 1; n <= 100; ++n) REQUIRE(tx.on_data_sent(digest_for(n)).has_value());
    auto d = digest_for(100);
    d[19] ^= 1;
    CHECK(tx.on_sendme(v1(d)).error() == FlowError::SendmeTagMismatch);
  }
}

TEST_CASE("SENDME v1: initial window rounds to a multiple of 100", "[flow][sendme]") {
  CircuitSendmeSender tx(SendmeConfig{}, 950);
  CHECK(tx.window() == CellCount{900});
  // The first tag is the 100th cell, as the receiver (starting at 1000) expects.
  for (std::uint32_t n = 1; n <= 100; ++n) REQUIRE(tx.on_data_sent(digest_for(n)).has_value());
  CHECK(tx.pending_tags() == 1);
  CHECK(tx.on_sendme(v1(digest_for(100))).has_value());
  CHECK(CircuitSendmeSender(SendmeConfig{}, 7).window() == CellCount{100});
  CHECK(CircuitSendmeSender(SendmeConfig{}, 5000).window() == CellCount{1000});
}

TEST_CASE("SENDME v1: sender and receiver together over many windows", "[flow][sendme]") {
  CircuitSendmeSender tx;
  CircuitSendmeReceiver rx;
  std::uint32_t sent = 0;
  int sendmes = 0;
  // The receiver answers at once, so the sender never stalls.
  while (sent < 10'000) {
    REQUIRE(tx.can_send());
    ++sent;
    REQUIRE(tx.on_data_sent(digest_for(sent)).has_value());
    auto r = rx.on_data_received(digest_for(sent));
    REQUIRE(r.has_value());
    if (r->has_value()) {
      ++sendmes;
      REQUIRE(tx.on_sendme(**r).has_value());
    }
  }
  CHECK(sendmes == 100);
  CHECK(tx.window() == CellCount{1000});
  CHECK(tx.pending_tags() == 0);
}
