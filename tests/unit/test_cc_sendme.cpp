// SENDME cadence and v1 tags on circuits with congestion control: the
// receiver answers every sendme_inc-th DATA cell with the running digest
// after it; the sender records that digest and the send time for each such
// cell and checks them in order.
#include <catch2/catch.hpp>

#include <chrono>
#include <vector>

#include "conflux/proto/cc_sendme.hpp"
#include "sendme_test_support.hpp"

using namespace conflux;
using namespace conflux::proto;
using conflux::test::digest_for;
using conflux::test::v1;
using std::chrono::microseconds;

namespace {

CcClock::time_point at_us(std::int64_t us) { return CcClock::time_point{} + microseconds{us}; }

}  // namespace

TEST_CASE("cc sendme receiver: a v1 SENDME after every 31st DATA cell, tagged with that cell",
          "[cc][sendme]") {
  CircuitSendmeReceiver rx(SendmeConfig{}, 31);
  std::vector<std::uint64_t> answered;
  for (std::uint64_t n = 1; n <= 100; ++n) {
    auto r = rx.on_data_received(digest_for(n));
    REQUIRE(r.has_value());
    if (!r->has_value()) continue;
    answered.push_back(n);
    REQUIRE((*r)->tag.has_value());
    CHECK((*r)->tag->len == 20);
    const auto d = digest_for(n);
    CHECK(std::equal(d.begin(), d.end(), (*r)->tag->bytes.begin()));
  }
  CHECK(answered == std::vector<std::uint64_t>{31, 62, 93});
  // The deliver window never runs down: it is topped up every 31 cells.
  CHECK(rx.window() == CellCount{1000 - 7});
}

TEST_CASE("cc sendme sender: records the 31st, 62nd, ... cell's digest and accepts its echo",
          "[cc][sendme]") {
  ClockHealth clock;
  CcSendmeSender tx(CcParams{}, CcPathType::Exit, CcAgreement{31}, clock);
  CHECK(tx.package_window() == 124);
  for (std::uint64_t n = 1; n <= 124; ++n) {
    auto r = tx.on_data_sent(at_us(1'000'000), digest_for(n));
    REQUIRE(r.has_value());
    CHECK(*r == (n == 124 ? WindowStatus::Exhausted : WindowStatus::Open));
  }
  CHECK(tx.pending_sendmes() == 4);
  CHECK_FALSE(tx.can_send());
  auto bad = tx.on_data_sent(at_us(1'000'000), digest_for(125));
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error() == FlowError::PackageWindowEmpty);

  auto r = tx.on_sendme(at_us(1'100'000), v1(digest_for(31)));
  REQUIRE(r.has_value());
  CHECK(*r == WindowStatus::Open);
  CHECK(tx.pending_sendmes() == 3);
  CHECK(tx.vegas().inflight() == 93);
  CHECK(tx.vegas().cwnd() == 155);
  CHECK(tx.vegas().rtt().ewma_usec() == 100'000);
  CHECK(tx.package_window() == 62);
}

TEST_CASE("cc sendme sender: a wrong tag, a v0 SENDME, or one with nothing pending is a violation",
          "[cc][sendme]") {
  ClockHealth clock;
  CcSendmeSender tx(CcParams{}, CcPathType::Exit, CcAgreement{31}, clock);
  auto none = tx.on_sendme(at_us(10), v1(digest_for(31)));
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error() == FlowError::SendmeNoTagExpected);

  for (std::uint64_t n = 1; n <= 124; ++n) REQUIRE(tx.on_data_sent(at_us(0), digest_for(n)).has_value());
  auto wrong = tx.on_sendme(at_us(10), v1(digest_for(62)));  // out of order
  REQUIRE_FALSE(wrong.has_value());
  CHECK(wrong.error() == FlowError::SendmeTagMismatch);
  CHECK(is_protocol_violation(wrong.error()));
  CHECK(tx.pending_sendmes() == 3);  // consumed anyway, as tor does

  auto v0 = tx.on_sendme(at_us(10), cell::SendmeMsg{});
  REQUIRE_FALSE(v0.has_value());
  CHECK(v0.error() == FlowError::SendmeTagRequired);

  cell::SendmeTag cgo;
  cgo.len = 16;
  auto short_tag = tx.on_sendme(at_us(10), cell::SendmeMsg{cgo});
  REQUIRE_FALSE(short_tag.has_value());
  CHECK(short_tag.error() == FlowError::SendmeTagBadLength);
}

TEST_CASE("cc sendme sender: v0 SENDMEs pass where v1 is not required", "[cc][sendme]") {
  ClockHealth clock;
  CcSendmeSender tx(CcParams{}, CcPathType::Exit, CcAgreement{31}, clock, SendmeConfig{false, true});
  for (std::uint64_t n = 1; n <= 31; ++n) REQUIRE(tx.on_data_sent(at_us(0), digest_for(n)).has_value());
  auto r = tx.on_sendme(at_us(50'000), cell::SendmeMsg{});
  REQUIRE(r.has_value());
  CHECK(tx.vegas().inflight() == 0);
  CHECK(tx.vegas().rtt().ewma_usec() == 50'000);
}

TEST_CASE("cc sendme: a negotiated sendme_inc of 30 moves the cadence", "[cc][sendme]") {
  ClockHealth clock;
  CcSendmeSender tx(CcParams{}, CcPathType::Exit, CcAgreement{30}, clock);
  CircuitSendmeReceiver rx(SendmeConfig{}, 30);
  std::vector<std::uint64_t> stamped;
  for (std::uint64_t n = 1; n <= 124; ++n) {
    if (tx.next_cell_triggers_sendme()) stamped.push_back(n);
    REQUIRE(tx.on_data_sent(at_us(0), digest_for(n)).has_value());
    auto s = rx.on_data_received(digest_for(n));
    REQUIRE(s.has_value());
    CHECK(s->has_value() == (n % 30 == 0));
  }
  CHECK(stamped == std::vector<std::uint64_t>{30, 60, 90, 120});
}

TEST_CASE("cc sendme: sender and receiver run a bulk transfer in step", "[cc][sendme]") {
  // Every cell takes 50 ms to be acknowledged; the sender refills the window
  // after each SENDME. 20000 cells go through without a violation.
  ClockHealth clock;
  CcSendmeSender tx(CcParams{}, CcPathType::Exit, CcAgreement{31}, clock);
  CircuitSendmeReceiver rx(SendmeConfig{}, 31);
  std::vector<std::pair<std::int64_t, cell::SendmeMsg>> in_flight_sendmes;
  std::int64_t now = 0;
  std::uint64_t sent = 0, sendmes = 0;
  while (sent < 20000) {
    while (tx.can_send() && sent < 20000) {
      ++sent;
      REQUIRE(tx.on_data_sent(at_us(now), digest_for(sent)).has_value());
      auto s = rx.on_data_received(digest_for(sent));
      REQUIRE(s.has_value());
      if (s->has_value()) in_flight_sendmes.emplace_back(now + 50'000, **s);
    }
    REQUIRE_FALSE(in_flight_sendmes.empty());
    now = in_flight_sendmes.front().first;
    auto r = tx.on_sendme(at_us(now), in_flight_sendmes.front().second);
    REQUIRE(r.has_value());
    ++sendmes;
    in_flight_sendmes.erase(in_flight_sendmes.begin());
  }
  // Every 31st cell was answered: each answer is either processed or still on its way.
  CHECK(sendmes + tx.pending_sendmes() == 20000 / 31);
  CHECK(tx.vegas().rtt().ewma_usec() == 50'000);
  CHECK(tx.vegas().rtt().min_usec() == 50'000);
  // 16 SENDMEs take cwnd to 620 (31 each), then RFC 3742 adds about
  // (31 * 600 + cwnd) / (2 cwnd) per SENDME: cwnd^2 grows by about
  // 18600 + cwnd each time, rounding down; the queue never reaches gamma.
  CHECK(sendmes == 544);
  CHECK(tx.vegas().in_slow_start());
  CHECK(tx.vegas().cwnd() > 3000);
  CHECK(tx.vegas().cwnd() < 3400);
  CHECK(tx.pending_sendmes() == in_flight_sendmes.size());
}

TEST_CASE("cc sendme sender: the pending queue is bounded, sending stops when it is full", "[cc][sendme]") {
  // sendme_inc 1 and cwnd 10000 would need 10000 entries: the queue stops at
  // kMaxPendingCcSendmes and can_send() turns false there.
  ClockHealth clock;
  CcSendmeSender tx(cc_params_from({{"cc_cwnd_init", 10000}}).params, CcPathType::Exit, CcAgreement{1}, clock);
  std::uint64_t n = 0;
  while (tx.can_send()) REQUIRE(tx.on_data_sent(at_us(0), digest_for(++n)).has_value());
  CHECK(n == kMaxPendingCcSendmes);
  CHECK(tx.pending_sendmes() == kMaxPendingCcSendmes);
  CHECK(tx.vegas().package_window() == 10000 - kMaxPendingCcSendmes);
  CHECK(tx.package_window() == 0);
  auto r = tx.on_data_sent(at_us(0), digest_for(n + 1));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() == FlowError::SendmeTagQueueFull);
  REQUIRE(tx.on_sendme(at_us(100), v1(digest_for(1))).has_value());
  CHECK(tx.can_send());
}
