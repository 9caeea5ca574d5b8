#include <catch2/catch.hpp>
#include <map>

#include "conflux/proto/circuit_mux.hpp"
#include "conflux/proto/token_bucket.hpp"

using namespace conflux;
using namespace conflux::proto;

namespace {
WireCell cell_of(std::uint8_t tag) {
  WireCell c{};
  c[0] = tag;
  return c;
}
const MuxTime kT0{};
std::vector<std::uint8_t> tags_in_order(CircuitMux& mux) {
  std::vector<std::uint8_t> tags;
  std::vector<std::uint8_t> out;
  while (mux.pop_into(out, kT0) > 0) {
    tags.push_back(out[0]);
    out.clear();
  }
  return tags;
}
}  // namespace

TEST_CASE("circuit mux serves circuits round robin, one cell each", "[mux]") {
  CircuitMux mux({}, CircuitPriority{-1.0});
  REQUIRE(mux.push(CircId{1}, cell_of(11)) == MuxPush::Queued);
  REQUIRE(mux.push(CircId{1}, cell_of(12)) == MuxPush::Queued);
  REQUIRE(mux.push(CircId{1}, cell_of(13)) == MuxPush::Queued);
  REQUIRE(mux.push(CircId{2}, cell_of(21)) == MuxPush::Queued);
  REQUIRE(mux.push(CircId{3}, cell_of(31)) == MuxPush::Queued);
  REQUIRE(mux.push(CircId{3}, cell_of(32)) == MuxPush::Queued);
  CHECK(mux.queued_cells() == 6);
  CHECK(tags_in_order(mux) == std::vector<std::uint8_t>{11, 21, 31, 12, 32, 13});
  CHECK(mux.empty());
}

TEST_CASE("control bytes go first and are bounded", "[mux]") {
  CircuitMux mux({.max_cells_per_circuit = 10, .max_control_bytes = 8, .gauge = nullptr});
  REQUIRE(mux.push(CircId{5}, cell_of(50)) == MuxPush::Queued);
  std::vector<std::uint8_t> ctl{0xAA, 0xBB, 0xCC};
  REQUIRE(mux.push_control(ctl) == MuxPush::Queued);
  CHECK(mux.push_control(std::vector<std::uint8_t>(6, 1)) == MuxPush::ControlQueueFull);
  std::vector<std::uint8_t> out;
  CHECK(mux.pop_into(out, kT0) == 3);
  CHECK(out == ctl);
  out.clear();
  CHECK(mux.pop_into(out, kT0) == kWireCellLen);
  CHECK(out[0] == 50);
}

TEST_CASE("a full circuit queue is reported, other circuits unaffected", "[mux]") {
  CircuitMux mux({.max_cells_per_circuit = 2, .max_control_bytes = 64, .gauge = nullptr});
  REQUIRE(mux.push(CircId{1}, cell_of(1)) == MuxPush::Queued);
  REQUIRE(mux.push(CircId{1}, cell_of(2)) == MuxPush::Queued);
  CHECK(mux.push(CircId{1}, cell_of(3)) == MuxPush::CircuitQueueFull);
  CHECK(mux.push(CircId{2}, cell_of(4)) == MuxPush::Queued);
  CHECK(mux.queued_cells(CircId{1}) == 2);
}

TEST_CASE("detaching a circuit drops its cells and its turn", "[mux]") {
  CircuitMux mux;
  REQUIRE(mux.push(CircId{1}, cell_of(1)) == MuxPush::Queued);
  REQUIRE(mux.push(CircId{2}, cell_of(2)) == MuxPush::Queued);
  REQUIRE(mux.push(CircId{1}, cell_of(3)) == MuxPush::Queued);
  CHECK(mux.detach(CircId{1}) == 2);
  CHECK(mux.detach(CircId{9}) == 0);
  CHECK(mux.queued_cells() == 1);
  CHECK(tags_in_order(mux) == std::vector<std::uint8_t>{2});
}

TEST_CASE("token bucket refills at the rate, caps at the burst, and is exact at slow rates", "[bucket]") {
  using namespace std::chrono_literals;
  TokenBucket::Clock::time_point t0{};
  TokenBucket b(1000, 4000, t0);  // 1000 B/s, burst 4000
  CHECK(b.tokens() == 4000);
  CHECK(b.allowance(5000) == 4000);
  b.consume(4000);
  CHECK(b.allowance(1) == 0);
  CHECK(b.wait_for(500) == 500ms);
  b.refill(t0 + 250ms);
  CHECK(b.tokens() == 250);
  for (int i = 1; i <= 1000; ++i) b.refill(t0 + 250ms + std::chrono::microseconds(i * 333));
  // 1000 * 333 us = 333 ms -> 333 bytes more; the carry keeps it from rounding to 0 each step.
  CHECK(b.tokens() == 583);
  b.refill(t0 + 100s);
  CHECK(b.tokens() == 4000);
  TokenBucket unlimited(0, 0, t0);
  CHECK(unlimited.allowance(1u << 30) == (1u << 30));
  CHECK(unlimited.wait_for(1u << 30) == TokenBucket::Clock::duration::zero());
  TokenBucket small_burst(1000, 10, t0);  // burst below rate is raised to the rate, as tor requires burst >= rate
  CHECK(small_burst.tokens() == 1000);
}

TEST_CASE("sampled cells: one in N, numbered in order, with their circuit and queue time", "[mux][trace]") {
  CircuitMux mux({}, CircuitPriority{-1.0});
  mux.set_sampling(3);
  // Cell k (tag k) of circuit 1 + k % 2, queued at k ms.
  for (std::uint8_t k = 0; k < 12; ++k)
    REQUIRE(mux.push(CircId{1u + k % 2u}, cell_of(k), kT0 + std::chrono::milliseconds(k)) == MuxPush::Queued);
  std::vector<std::uint8_t> out;
  std::vector<std::pair<std::uint8_t, CellSample>> sampled;
  while (mux.pop_into(out, kT0) > 0) {
    if (const auto& s = mux.last_popped_sample()) sampled.emplace_back(out[0], *s);
    out.clear();
  }
  // Pushes 0, 3, 6 and 9 were sampled, numbered 0..3 in push order whatever
  // order they leave in.
  REQUIRE(sampled.size() == 4);
  std::map<std::uint64_t, std::uint8_t> tag_of_seq;
  for (const auto& [tag, s] : sampled) {
    tag_of_seq[s.seq] = tag;
    CHECK(s.circ == CircId{1u + tag % 2u});
    CHECK(s.queued == kT0 + std::chrono::milliseconds(tag));
  }
  CHECK(tag_of_seq == std::map<std::uint64_t, std::uint8_t>{{0, 0}, {1, 3}, {2, 6}, {3, 9}});

  // Unsampled pushes (no time) and sampling off leave no sample behind.
  mux.set_sampling(0);
  REQUIRE(mux.push(CircId{1}, cell_of(50), kT0) == MuxPush::Queued);
  REQUIRE(mux.pop_into(out, kT0) > 0);
  CHECK_FALSE(mux.last_popped_sample().has_value());
}

TEST_CASE("a circuit is blocked on its channel from the high watermark until it drains to the low one",
          "[mux][cc]") {
  CircuitMux mux({}, CircuitPriority{-1.0});
  mux.set_block_watermarks(4, 1);
  for (int i = 0; i < 3; ++i) REQUIRE(mux.push(CircId{1}, cell_of(1)) == MuxPush::Queued);
  REQUIRE(mux.push(CircId{2}, cell_of(2)) == MuxPush::Queued);
  CHECK_FALSE(mux.circuit_blocked(CircId{1}));
  REQUIRE(mux.push(CircId{1}, cell_of(1)) == MuxPush::Queued);  // 4 queued: the high mark
  CHECK(mux.circuit_blocked(CircId{1}));
  CHECK_FALSE(mux.circuit_blocked(CircId{2}));
  std::vector<std::uint8_t> out;
  // Round robin: 1, 2, 1, 1 -> circuit 1 has 3, 2, 1 left; unblocked at 1.
  REQUIRE(mux.pop_into(out, kT0) > 0);
  CHECK(mux.circuit_blocked(CircId{1}));  // 3 left
  CHECK_FALSE(mux.last_popped_unblocked().has_value());
  REQUIRE(mux.pop_into(out, kT0) > 0);     // circuit 2's cell
  REQUIRE(mux.pop_into(out, kT0) > 0);
  CHECK(mux.circuit_blocked(CircId{1}));  // 2 left: above the low mark
  CHECK_FALSE(mux.last_popped_unblocked().has_value());
  REQUIRE(mux.pop_into(out, kT0) > 0);
  CHECK_FALSE(mux.circuit_blocked(CircId{1}));  // 1 left
  CHECK(mux.last_popped_unblocked() == CircId{1});  // said once, by the pop that unblocked it
  CHECK(mux.queued_cells(CircId{1}) == 1);
  REQUIRE(mux.pop_into(out, kT0) > 0);
  CHECK_FALSE(mux.last_popped_unblocked().has_value());
  // tor's defaults: blocked at 256 queued.
  CircuitMux dflt({}, CircuitPriority{-1.0});
  for (int i = 0; i < 255; ++i) REQUIRE(dflt.push(CircId{7}, cell_of(7)) == MuxPush::Queued);
  CHECK_FALSE(dflt.circuit_blocked(CircId{7}));
  REQUIRE(dflt.push(CircId{7}, cell_of(7)) == MuxPush::Queued);
  CHECK(dflt.circuit_blocked(CircId{7}));
  dflt.detach(CircId{7});
  CHECK_FALSE(dflt.circuit_blocked(CircId{7}));
}

TEST_CASE("a cell ring is first in, first out across its wrap and its growth", "[mux][ring]") {
  CellRing ring;
  std::uint8_t next_in = 0;
  std::uint8_t next_out = 0;
  auto push = [&](int n) {
    for (int i = 0; i < n; ++i) {
      ring.push_back(cell_of(next_in), kT0 + std::chrono::nanoseconds(next_in));
      ++next_in;
    }
  };
  auto pop = [&](int n) {
    for (int i = 0; i < n; ++i) {
      REQUIRE(!ring.empty());
      CHECK(ring.front().cell[0] == next_out);
      CHECK(ring.front().at == kT0 + std::chrono::nanoseconds(next_out));
      ring.pop_front();
      ++next_out;
    }
  };
  push(10);
  pop(7);
  push(12);  // wraps around the first 16 slots
  CHECK(ring.capacity() == 16);
  CHECK(ring.size() == 15);
  push(20);  // grows while wrapped: the order survives the move
  CHECK(ring.capacity() == 64);
  pop(35);
  CHECK(ring.empty());
  push(3);
  pop(3);
  CHECK(ring.capacity() == 64);  // storage kept when emptied
}

TEST_CASE("circuit mux keeps each circuit's order when drained queues are reused", "[mux][ring]") {
  CircuitMux mux({}, CircuitPriority{-1.0});
  // Circuit 1 drains (its ring goes spare); circuit 2 then takes that ring.
  REQUIRE(mux.push(CircId{1}, cell_of(1)) == MuxPush::Queued);
  REQUIRE(mux.push(CircId{1}, cell_of(2)) == MuxPush::Queued);
  CHECK(tags_in_order(mux) == std::vector<std::uint8_t>{1, 2});
  for (std::uint8_t t = 10; t < 40; ++t) REQUIRE(mux.push(CircId{2}, cell_of(t)) == MuxPush::Queued);
  REQUIRE(mux.push(CircId{1}, cell_of(3)) == MuxPush::Queued);
  CHECK(mux.queued_cells(CircId{2}) == 30);
  CHECK(mux.queued_cells(CircId{1}) == 1);
  auto tags = tags_in_order(mux);
  REQUIRE(tags.size() == 31);
  CHECK(tags[0] == 10);
  CHECK(tags[1] == 3);  // round robin: circuit 1's one cell after circuit 2's first
  for (std::size_t i = 2; i < tags.size(); ++i) CHECK(tags[i] == static_cast<std::uint8_t>(9 + i));
  CHECK(mux.queued_cells() == 0);
}
