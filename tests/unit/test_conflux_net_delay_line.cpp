// The link emulator's delay line (conflux/netspec/delay_line.hpp), in made-up time.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "conflux/netspec/delay_line.hpp"

using namespace conflux::netspec;
using namespace std::chrono_literals;

namespace {

std::vector<std::uint8_t> packet_of(std::uint32_t id, std::size_t size = 100) {
  std::vector<std::uint8_t> p(size, 0);
  for (int i = 0; i < 4; ++i) p[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(id >> (8 * i));
  return p;
}

std::uint32_t id_of(const std::vector<std::uint8_t>& p) {
  std::uint32_t id = 0;
  for (int i = 0; i < 4; ++i) id |= static_cast<std::uint32_t>(p[static_cast<std::size_t>(i)]) << (8 * i);
  return id;
}

LinkParams link(std::chrono::microseconds latency, std::chrono::microseconds jitter = 0us, double loss = 0.0) {
  LinkParams p;
  p.latency = latency;
  p.jitter = jitter;
  p.loss = loss;
  return p;
}

}  // namespace

TEST_CASE("delay line: a packet leaves exactly one latency after it arrived", "[delay_line]") {
  DelayLine line(link(50ms), 1);
  REQUIRE(line.push(EmuTime(10ms), packet_of(7)) == PushResult::Queued);
  REQUIRE(line.next_release() == EmuTime(60ms));
  CHECK_FALSE(line.pop_due(EmuTime(60ms) - EmuTime(1)).has_value());
  auto out = line.pop_due(EmuTime(60ms));
  REQUIRE(out.has_value());
  CHECK(id_of(*out) == 7);
  CHECK(line.next_release() == std::nullopt);
  CHECK(line.counters().delivered == 1);
  CHECK(line.counters().delivered_bytes == 100);
}

TEST_CASE("delay line: without jitter packets leave in order, each after its own latency", "[delay_line]") {
  DelayLine line(link(20ms), 1);
  for (std::uint32_t i = 0; i < 5; ++i) line.push(EmuTime(1ms) * i, packet_of(i));
  for (std::uint32_t i = 0; i < 5; ++i) {
    REQUIRE(line.next_release() == EmuTime(20ms) + EmuTime(1ms) * i);
    auto out = line.pop_due(EmuTime(20ms) + EmuTime(1ms) * i);
    REQUIRE(out.has_value());
    CHECK(id_of(*out) == i);
  }
}

TEST_CASE("delay line: jitter stays within its bounds and never reorders", "[delay_line]") {
  DelayLine line(link(50ms, 10ms), 42);
  // Packets 100 ms apart, each popped before the next arrives, so no packet is held back by the
  // one ahead and every delay is the draw itself.
  std::vector<EmuTime> arrivals;
  for (std::uint32_t i = 0; i < 2000; ++i) arrivals.push_back(EmuTime(100ms) * i);
  EmuTime min_delay = EmuTime::max();
  EmuTime max_delay = EmuTime::zero();
  for (std::uint32_t i = 0; i < arrivals.size(); ++i) {
    line.push(arrivals[i], packet_of(i));
    const EmuTime delay = *line.next_release() - arrivals[i];
    min_delay = std::min(min_delay, delay);
    max_delay = std::max(max_delay, delay);
    auto out = line.pop_due(*line.next_release());
    REQUIRE(out.has_value());
    CHECK(id_of(*out) == i);
  }
  CHECK(min_delay >= EmuTime(40ms));
  CHECK(max_delay <= EmuTime(60ms));
  // 2000 uniform draws reach within 0.5 ms of both ends (the chance that they miss is 2e-9).
  CHECK(min_delay < EmuTime(40500us));
  CHECK(max_delay > EmuTime(59500us));
}

TEST_CASE("delay line: a jitter draw that would overtake waits for the packet ahead", "[delay_line]") {
  DelayLine line(link(50ms, 40ms), 7);
  std::vector<EmuTime> releases;
  // 0.1 ms apart with +-40 ms of jitter: most draws would overtake.
  for (std::uint32_t i = 0; i < 1000; ++i) line.push(EmuTime(100us) * i, packet_of(i));
  std::uint32_t expected = 0;
  EmuTime now{0};
  while (auto next = line.next_release()) {
    now = *next;
    while (auto out = line.pop_due(now)) {
      CHECK(id_of(*out) == expected);
      ++expected;
      releases.push_back(now);
    }
  }
  CHECK(expected == 1000);
  CHECK(std::is_sorted(releases.begin(), releases.end()));
  CHECK(releases.front() >= EmuTime(10ms));
  CHECK(releases.back() <= EmuTime(100us) * 999 + EmuTime(90ms));
}

TEST_CASE("delay line: the loss rate over many packets is the configured one", "[delay_line]") {
  DelayLine line(link(0us, 0us, 0.02), 2026);
  const std::uint32_t n = 100000;
  std::uint32_t lost = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (line.push(EmuTime(i), packet_of(i)) == PushResult::Lost) ++lost;
    while (line.pop_due(EmuTime(i))) {
    }
  }
  CHECK(line.counters().lost == lost);
  CHECK(line.counters().delivered == n - lost);
  // 2% of 100000 is 2000 with a standard deviation of 44: 5 of them either side.
  CHECK(lost > 1780);
  CHECK(lost < 2220);
}

TEST_CASE("delay line: the same seed loses the same packets", "[delay_line]") {
  auto losses = [](std::uint64_t seed) {
    DelayLine line(link(1ms, 0us, 0.1), seed);
    std::vector<std::uint32_t> lost;
    for (std::uint32_t i = 0; i < 500; ++i)
      if (line.push(EmuTime(i), packet_of(i)) == PushResult::Lost) lost.push_back(i);
    return lost;
  };
  CHECK(losses(5) == losses(5));
  CHECK(losses(5) != losses(6));
}

TEST_CASE("delay line: no loss configured loses nothing", "[delay_line]") {
  DelayLine line(link(1ms), 3);
  for (std::uint32_t i = 0; i < 1000; ++i) CHECK(line.push(EmuTime(i), packet_of(i)) == PushResult::Queued);
  CHECK(line.counters().lost == 0);
}

TEST_CASE("delay line: a full queue drops the newest packet and counts it", "[delay_line]") {
  LinkParams p = link(100ms);
  p.queue_packets = 3;
  DelayLine line(p, 1);
  for (std::uint32_t i = 0; i < 3; ++i) CHECK(line.push(EmuTime(i), packet_of(i)) == PushResult::Queued);
  CHECK(line.push(EmuTime(3), packet_of(3)) == PushResult::Overflow);
  CHECK(line.counters().overflow == 1);
  CHECK(line.queued_packets() == 3);
  // Once one leaves, there is room again.
  REQUIRE(line.pop_due(EmuTime(100ms)).has_value());
  CHECK(line.push(EmuTime(100ms), packet_of(4)) == PushResult::Queued);
  std::vector<std::uint32_t> order;
  while (auto out = line.pop_due(EmuTime(1s))) order.push_back(id_of(*out));
  CHECK(order == std::vector<std::uint32_t>{1, 2, 4});
}

TEST_CASE("delay line: the byte bound drops a packet that would not fit", "[delay_line]") {
  LinkParams p = link(10ms);
  p.queue_bytes = 2500;
  DelayLine line(p, 1);
  CHECK(line.push(EmuTime(0), packet_of(0, 1500)) == PushResult::Queued);
  CHECK(line.push(EmuTime(0), packet_of(1, 1500)) == PushResult::Overflow);
  CHECK(line.push(EmuTime(0), packet_of(2, 1000)) == PushResult::Queued);
  CHECK(line.queued_bytes() == 2500);
  CHECK(line.counters().overflow == 1);
}

TEST_CASE("delay line: a rate spaces packets by their size and queues behind the sender", "[delay_line]") {
  LinkParams p = link(10ms);
  p.rate = 1'000'000;  // 1000-byte packets take 1 ms each
  DelayLine line(p, 1);
  for (std::uint32_t i = 0; i < 3; ++i) REQUIRE(line.push(EmuTime(0), packet_of(i, 1000)) == PushResult::Queued);
  // Sent at 1, 2 and 3 ms, each then 10 ms on the way.
  for (auto due : {11ms, 12ms, 13ms}) {
    REQUIRE(line.next_release() == EmuTime(due));
    CHECK(line.pop_due(EmuTime(due)).has_value());
  }
  // An idle sender starts at once: the rate does not accumulate credit or debt across a pause.
  REQUIRE(line.push(EmuTime(100ms), packet_of(9, 500)) == PushResult::Queued);
  CHECK(line.next_release() == EmuTime(100ms) + EmuTime(500us) + EmuTime(10ms));
}
