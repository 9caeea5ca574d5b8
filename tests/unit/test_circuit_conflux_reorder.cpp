// Conflux out-of-order memory: the per-set cap, the shared budget's hard cap,
// and which sets to shed first under pressure (oldest out-of-order data).
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <memory>

#include "conflux/proto/conflux_receiver.hpp"

using namespace conflux;
using namespace conflux::proto;
using cell::RelayCommand;

namespace {

const LegId kA{1};
const ConfluxTime kT0{std::chrono::seconds(100)};

SeqCell data(std::size_t len) {
  SeqCell c;
  c.command = RelayCommand::Data;
  c.body.assign(len, 0xAB);
  return c;
}

// Queues 'cells' cells of 'len' bytes (numbers 2, 3, ...; 1 never arrives).
void queue_cells(ConfluxReceiver& rx, int cells, std::size_t len, ConfluxTime when) {
  REQUIRE(rx.add_leg(kA, SeqAbs{0}));
  REQUIRE(rx.on_switch(kA, SeqRel{1}));
  for (int i = 0; i < cells; ++i) {
    auto a = rx.on_cell(kA, data(len), when);
    REQUIRE(a);
    REQUIRE(a->fate == CellFate::Queued);
  }
}

}  // namespace

TEST_CASE("per-set cap: the cell that would exceed it is refused", "[conflux]") {
  ReorderBudget budget;
  ReceiverLimits lim;
  const std::size_t cost = 100 + ConfluxReceiver::kEntryOverhead;
  lim.max_set_bytes = 3 * cost;
  ConfluxReceiver rx(SetId{1}, budget, lim);
  queue_cells(rx, 3, 100, kT0);
  CHECK(rx.queued_bytes() == 3 * cost);
  CHECK(rx.on_cell(kA, data(100), kT0).error() == ConfluxError::SetQueueFull);
  CHECK(rx.queued_bytes() == 3 * cost);
}

TEST_CASE("per-set cap: beyond it, each stream's DATA still queues up to its stream window", "[conflux]") {
  // Dozens of streams on one set hold more out of order than the per-set
  // cap when the legs' RTTs differ; a correct sender has at most a stream
  // window of DATA in flight per stream (issue 13).
  ReorderBudget budget;
  ReceiverLimits lim;
  const std::size_t cost = 100 + ConfluxReceiver::kEntryOverhead;
  lim.max_set_bytes = 3 * cost;
  lim.stream_window_cells = 4;
  ConfluxReceiver rx(SetId{1}, budget, lim);
  queue_cells(rx, 3, 100, kT0);  // stream 0: the cap is reached
  auto on_stream = [](std::uint16_t id, RelayCommand cmd = RelayCommand::Data) {
    SeqCell c = data(100);
    c.stream = StreamId{id};
    c.command = cmd;
    return c;
  };
  for (int i = 0; i < 4; ++i) REQUIRE(rx.on_cell(kA, on_stream(7), kT0));
  CHECK(rx.on_cell(kA, on_stream(7), kT0).error() == ConfluxError::SetQueueFull);
  for (int i = 0; i < 4; ++i) REQUIRE(rx.on_cell(kA, on_stream(8), kT0));
  CHECK(rx.on_cell(kA, on_stream(9, RelayCommand::End), kT0).error() == ConfluxError::SetQueueFull);
  CHECK(rx.on_cell(kA, data(100), kT0).error() == ConfluxError::SetQueueFull);
  CHECK(rx.queued_cells() == 11);
  CHECK(rx.queued_bytes() == 11 * cost);
}

TEST_CASE("global cap: shared across sets, never exceeded", "[conflux]") {
  const std::size_t cost = 400 + ConfluxReceiver::kEntryOverhead;
  ReorderBudget budget({5 * cost, 2 * cost});
  ConfluxReceiver r1(SetId{1}, budget);
  ConfluxReceiver r2(SetId{2}, budget);
  queue_cells(r1, 3, 400, kT0);
  CHECK(budget.used_bytes() == 3 * cost);
  REQUIRE(r2.add_leg(kA, SeqAbs{0}));
  REQUIRE(r2.on_switch(kA, SeqRel{1}));
  REQUIRE(r2.on_cell(kA, data(400), kT0));
  auto last = r2.on_cell(kA, data(400), kT0);
  REQUIRE(last);
  CHECK(last->memory_pressure);
  CHECK(budget.used_bytes() == 5 * cost);
  CHECK(r2.on_cell(kA, data(400), kT0).error() == ConfluxError::GlobalQueueFull);
  CHECK(budget.used_bytes() == 5 * cost);
}

TEST_CASE("under pressure, the sets holding the oldest out-of-order data go first", "[conflux]") {
  const std::size_t cost = 100 + ConfluxReceiver::kEntryOverhead;
  ReorderBudget budget({100 * cost, 5 * cost});
  auto young = std::make_unique<ConfluxReceiver>(SetId{1}, budget);
  auto old = std::make_unique<ConfluxReceiver>(SetId{2}, budget);
  auto middle = std::make_unique<ConfluxReceiver>(SetId{3}, budget);
  queue_cells(*young, 3, 100, kT0 + std::chrono::seconds(30));
  queue_cells(*old, 3, 100, kT0);
  queue_cells(*middle, 3, 100, kT0 + std::chrono::seconds(10));
  REQUIRE(budget.under_pressure());
  // 9 cells queued, 5 allowed: closing the oldest (3) is not enough, the
  // middle one (3 more) is.
  const auto shed = budget.sets_to_close();
  REQUIRE(shed.size() == 2);
  CHECK(shed[0] == SetId{2});
  CHECK(shed[1] == SetId{3});

  // Destroying a set gives its bytes back (tor's counter leaked: TROVE-2026-010).
  old.reset();
  middle.reset();
  CHECK(budget.used_bytes() == 3 * cost);
  CHECK_FALSE(budget.under_pressure());
  CHECK(budget.sets_to_close().empty());
}

TEST_CASE("a set's oldest data is its earliest arrival still queued, not its lowest number", "[conflux]") {
  ReorderBudget budget;
  ConfluxReceiver rx(SetId{7}, budget);
  REQUIRE(rx.add_leg(kA, SeqAbs{0}));
  REQUIRE(rx.add_leg(LegId{2}, SeqAbs{0}));
  // Cell 3 arrives at t0 on A; cell 2 at t0+5 on B; then 1 arrives: 2 and 3
  // drain together.
  REQUIRE(rx.on_switch(kA, SeqRel{2}));
  REQUIRE(rx.on_cell(kA, data(10), kT0));
  REQUIRE(rx.on_switch(LegId{2}, SeqRel{1}));
  REQUIRE(rx.on_cell(LegId{2}, data(10), kT0 + std::chrono::seconds(5)));
  CHECK(rx.oldest_queued() == kT0);
  REQUIRE(rx.add_leg(LegId{3}, SeqAbs{0}));
  auto one = rx.on_cell(LegId{3}, data(10), kT0 + std::chrono::seconds(6));
  REQUIRE(one);
  CHECK(one->fate == CellFate::Deliver);
  REQUIRE(rx.pop_ready());
  CHECK(rx.oldest_queued() == kT0);  // 3 (t0) is still queued
  REQUIRE(rx.pop_ready());
  CHECK_FALSE(rx.oldest_queued());
  CHECK(budget.used_bytes() == 0);
}
