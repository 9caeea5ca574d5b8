// MaxMemInQueues' parts (proto/queue_memory.hpp): tor's default, the global
// gauge every mux keeps, and the oldest-first order of the OOM handler.
#include <catch2/catch.hpp>
#include <memory>

#include "conflux/proto/circuit_mux.hpp"
#include "conflux/proto/queue_memory.hpp"

using namespace conflux;
using proto::kOneGigabyte;
using proto::kOneMegabyte;

namespace {

proto::MuxTime at(int ms) { return proto::MuxTime{} + std::chrono::milliseconds(ms); }

}  // namespace

TEST_CASE("MaxMemInQueues default: tor's rule for 64-bit hosts", "[oom]") {
  CHECK(proto::default_max_mem_in_queues(std::nullopt) == 8 * kOneGigabyte);
  CHECK(proto::default_max_mem_in_queues(4 * kOneGigabyte) == 3 * kOneGigabyte);
  CHECK(proto::default_max_mem_in_queues(16 * kOneGigabyte) == 16 * kOneGigabyte / 5 * 2);
  CHECK(proto::default_max_mem_in_queues(64 * kOneGigabyte) == 8 * kOneGigabyte);  // capped
  CHECK(proto::default_max_mem_in_queues(256 * kOneMegabyte) == kOneGigabyte / 4);  // at least 256 MB

  auto c = proto::choose_max_mem_in_queues(10 * kOneMegabyte, std::nullopt, false);
  CHECK(c.bytes == 64 * kOneMegabyte);
  CHECK(c.raised);
  c = proto::choose_max_mem_in_queues(10 * kOneMegabyte, std::nullopt, true);
  CHECK(c.bytes == 10 * kOneMegabyte);
  CHECK(c.low);
  c = proto::choose_max_mem_in_queues(512 * kOneMegabyte, std::nullopt, false);
  CHECK(c.bytes == 512 * kOneMegabyte);
  CHECK_FALSE(c.low);
}

TEST_CASE("every mux counts its cells and control bytes in the shared gauge", "[oom]") {
  auto gauge = std::make_shared<proto::QueueGauge>();
  proto::CircuitMuxLimits limits;
  limits.gauge = gauge;
  proto::WireCell cell{};
  {
    proto::CircuitMux a(limits);
    proto::CircuitMux b(limits);
    REQUIRE(a.push(CircId{1}, cell, at(1)) == proto::MuxPush::Queued);
    REQUIRE(a.push(CircId{1}, cell, at(2)) == proto::MuxPush::Queued);
    REQUIRE(b.push(CircId{9}, cell, at(3)) == proto::MuxPush::Queued);
    const std::array<std::uint8_t, 10> control{};
    REQUIRE(b.push_control(control) == proto::MuxPush::Queued);
    CHECK(gauge->bytes == 3 * proto::kQueuedCellCost + 10);

    std::vector<std::uint8_t> out;
    CHECK(b.pop_into(out, at(4)) == 10);  // control first
    CHECK(a.pop_into(out, at(4)) == proto::kWireCellLen);
    CHECK(gauge->bytes == 2 * proto::kQueuedCellCost);
    CHECK(a.detach(CircId{1}) == 1);
    CHECK(gauge->bytes == proto::kQueuedCellCost);
  }
  // A mux that goes away gives back what it held.
  CHECK(gauge->bytes == 0);
}

TEST_CASE("a mux reports each circuit's oldest queued cell", "[oom]") {
  proto::CircuitMux m;
  proto::WireCell cell{};
  REQUIRE(m.push(CircId{5}, cell, at(10)) == proto::MuxPush::Queued);
  REQUIRE(m.push(CircId{6}, cell, at(20)) == proto::MuxPush::Queued);
  REQUIRE(m.push(CircId{5}, cell, at(30)) == proto::MuxPush::Queued);
  auto q = m.queued_circuits(42);
  std::sort(q.begin(), q.end(), [](const auto& x, const auto& y) { return x.circ.value() < y.circ.value(); });
  REQUIRE(q.size() == 2);
  CHECK(q[0].channel == 42);
  CHECK(q[0].cells == 2);
  CHECK(q[0].oldest == at(10));
  CHECK(q[1].oldest == at(20));
  // Popping circuit 5's first cell makes its second the oldest.
  std::vector<std::uint8_t> out;
  m.set_priority(proto::CircuitPriority{0.0});
  while (m.queued_cells(CircId{5}) == 2) REQUIRE(m.pop_into(out, at(40)) > 0);
  for (const auto& e : m.queued_circuits(42))
    if (e.circ == CircId{5}) CHECK(e.oldest == at(30));
}

TEST_CASE("the OOM plan closes the oldest queues first, down to 90%", "[oom]") {
  const proto::QueueLimit limit(100 * proto::kQueuedCellCost);
  CHECK(limit.target() == 90 * proto::kQueuedCellCost);
  CHECK_FALSE(limit.over(99 * proto::kQueuedCellCost));
  CHECK(limit.over(100 * proto::kQueuedCellCost));
  CHECK(limit.under_pressure(75 * proto::kQueuedCellCost));
  CHECK_FALSE(limit.under_pressure(74 * proto::kQueuedCellCost));

  std::vector<proto::QueuedCircuit> queues{
      {1, CircId{1}, 40, at(300), 0, 0},  // newest
      {1, CircId{2}, 5, at(100), 0, 0},   // oldest
      {2, CircId{1}, 8, at(200), 0, 0},
      {3, CircId{4}, 47, at(250), 0, 0},
  };
  const auto plan = limit.plan(100 * proto::kQueuedCellCost, queues);
  CHECK(plan.target == 90 * proto::kQueuedCellCost);
  // 5 + 8 = 13 cells >= 10 to free: the two oldest, nothing else.
  REQUIRE(plan.victims.size() == 2);
  CHECK(plan.victims[0].circ == CircId{2});
  CHECK(plan.victims[1].channel == 2);
  // Under the target: nothing to close.
  CHECK(limit.plan(90 * proto::kQueuedCellCost, queues).victims.empty());
}

TEST_CASE("the OOM plan weighs an exit's buffered bytes by their age like queued cells", "[oom]") {
  const proto::QueueLimit limit(100 * proto::kQueuedCellCost);
  std::vector<proto::QueuedCircuit> queues{
      {1, CircId{1}, 50, at(300), 0, 0},
      {0, CircId{}, 0, at(150), 77, 30 * proto::kQueuedCellCost},  // an exit's buffers, older
      {2, CircId{1}, 20, at(200), 0, 0},
  };
  const auto plan = limit.plan(100 * proto::kQueuedCellCost, queues);
  // 10 cells' worth to free: the exit's buffers alone are enough.
  REQUIRE(plan.victims.size() == 1);
  CHECK(plan.victims[0].handle == 77);
}
