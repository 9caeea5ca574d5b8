// Conflux sequencing: the sender's numbering and SWITCHes, the receiver's
// deliver / queue / reject decisions, and the SWITCH checks tor lacks.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>

#include "conflux/proto/conflux_receiver.hpp"
#include "conflux/proto/conflux_sender.hpp"

using namespace conflux;
using namespace conflux::proto;
using cell::RelayCommand;

namespace {

const LegId kA{1};
const LegId kB{2};
const ConfluxTime kT0{std::chrono::seconds(100)};

SeqCell data(std::uint8_t tag, std::size_t len = 10) {
  SeqCell c;
  c.command = RelayCommand::Data;
  c.stream = StreamId{1};
  c.body.assign(len, tag);
  return c;
}

}  // namespace

TEST_CASE("sender numbers cells from 1 and switches with prop 329's relative numbers", "[conflux]") {
  ConfluxSender tx;
  REQUIRE(tx.add_leg(kA, SeqAbs{0}));
  REQUIRE(tx.add_leg(kB, SeqAbs{0}));

  // Prop 329's worked example: 10 cells on A, 21 on B, back to A.
  for (std::uint64_t i = 1; i <= 10; ++i) {
    auto p = tx.prepare_send(kA, RelayCommand::Data);
    REQUIRE(p);
    CHECK(p->seq == SeqAbs{i});
    CHECK_FALSE(p->switch_first);
  }
  auto first_b = tx.prepare_send(kB, RelayCommand::Data);
  REQUIRE(first_b);
  REQUIRE(first_b->switch_first);
  CHECK(first_b->switch_first->relative_seq == SeqRel{10});
  CHECK(first_b->seq == SeqAbs{11});
  for (int i = 0; i < 20; ++i) REQUIRE(tx.prepare_send(kB, RelayCommand::Data));
  auto back = tx.prepare_send(kA, RelayCommand::End);
  REQUIRE(back);
  REQUIRE(back->switch_first);
  CHECK(back->switch_first->relative_seq == SeqRel{21});
  CHECK(back->seq == SeqAbs{32});
  CHECK(tx.last_seq_sent() == SeqAbs{32});
  CHECK(tx.switches_sent() == 2);
  CHECK(tx.current_leg() == kA);
}

TEST_CASE("sender: a switch to a leg already level sends no SWITCH(0)", "[conflux]") {
  ConfluxSender tx;
  REQUIRE(tx.add_leg(kA, SeqAbs{0}));
  REQUIRE(tx.add_leg(kB, SeqAbs{0}));
  // The first cell of the set, on B: B is level with the set (0), no SWITCH.
  auto p = tx.prepare_send(kB, RelayCommand::Begin);
  REQUIRE(p);
  CHECK_FALSE(p->switch_first);
  CHECK(tx.switches_sent() == 0);
}

TEST_CASE("sender refuses leg-local commands, BEGIN_DIR and unknown legs", "[conflux]") {
  ConfluxSender tx;
  REQUIRE(tx.add_leg(kA, SeqAbs{0}));
  CHECK(tx.prepare_send(kA, RelayCommand::BeginDir).error() == ConfluxError::BeginDirOnSet);
  CHECK(tx.prepare_send(kA, RelayCommand::Sendme).error() == ConfluxError::NotMultiplexed);
  CHECK(tx.prepare_send(kA, RelayCommand::ConfluxSwitch).error() == ConfluxError::NotMultiplexed);
  CHECK(tx.prepare_send(kB, RelayCommand::Data).error() == ConfluxError::UnknownLeg);
  CHECK(tx.add_leg(kA, SeqAbs{0}).error() == ConfluxError::DuplicateLeg);
  // A peer claiming to have received more than was sent.
  CHECK(tx.add_leg(kB, SeqAbs{5}).error() == ConfluxError::SeqIncoherent);
  CHECK(tx.last_seq_sent() == SeqAbs{0});
}

TEST_CASE("every multiplexed command is sequenced and nothing else", "[conflux]") {
  for (int v = 0; v < 256; ++v) {
    const auto cmd = static_cast<RelayCommand>(v);
    const auto route = route_leg_cell(cmd);
    if (cmd == RelayCommand::BeginDir) {
      CHECK(route.error() == ConfluxError::BeginDirOnSet);
      continue;
    }
    REQUIRE(route);
    const bool seq = cmd == RelayCommand::Begin || cmd == RelayCommand::Data || cmd == RelayCommand::End ||
                     cmd == RelayCommand::Connected || cmd == RelayCommand::Resolve ||
                     cmd == RelayCommand::Resolved || cmd == RelayCommand::Xoff || cmd == RelayCommand::Xon;
    CHECK((*route == LegCellRoute::Sequenced) == seq);
  }
}

TEST_CASE("join-point check: only the exit's hop may speak for the set", "[conflux]") {
  CHECK(check_join_point(HopNum{3}, HopNum{3}));
  CHECK(check_join_point(HopNum{2}, HopNum{3}).error() == ConfluxError::WrongHop);
  CHECK(check_join_point(HopNum{0}, HopNum{0}).error() == ConfluxError::WrongHop);
}

TEST_CASE("receiver delivers in order, queues ahead, drains when the gap fills", "[conflux]") {
  ReorderBudget budget;
  ConfluxReceiver rx(SetId{1}, budget);
  REQUIRE(rx.add_leg(kA, SeqAbs{0}));
  REQUIRE(rx.add_leg(kB, SeqAbs{0}));

  // Sender: cells 1-2 on A, SWITCH(2) then 3-4 on B. B's arrive first.
  REQUIRE(rx.on_switch(kB, SeqRel{2}));
  auto b3 = rx.on_cell(kB, data(3), kT0);
  REQUIRE(b3);
  CHECK(b3->fate == CellFate::Queued);
  CHECK(b3->seq == SeqAbs{3});
  auto b4 = rx.on_cell(kB, data(4), kT0);
  REQUIRE(b4);
  CHECK(b4->fate == CellFate::Queued);
  CHECK(rx.queued_cells() == 2);
  CHECK(budget.used_bytes() == rx.queued_bytes());
  CHECK_FALSE(rx.pop_ready());

  auto a1 = rx.on_cell(kA, data(1), kT0);
  REQUIRE(a1);
  CHECK(a1->fate == CellFate::Deliver);
  REQUIRE(a1->deliver);
  CHECK(a1->deliver->body[0] == 1);
  CHECK_FALSE(rx.pop_ready());  // 2 is still missing
  auto a2 = rx.on_cell(kA, data(2), kT0);
  REQUIRE(a2);
  CHECK(a2->fate == CellFate::Deliver);
  auto c3 = rx.pop_ready();
  auto c4 = rx.pop_ready();
  REQUIRE(c3);
  REQUIRE(c4);
  CHECK(c3->body[0] == 3);
  CHECK(c4->body[0] == 4);
  CHECK_FALSE(rx.pop_ready());
  CHECK(rx.last_delivered() == SeqAbs{4});
  CHECK(rx.queued_bytes() == 0);
  CHECK(budget.used_bytes() == 0);
}

TEST_CASE("receiver rejects a duplicate on an original leg", "[conflux]") {
  ReorderBudget budget;
  ConfluxReceiver rx(SetId{1}, budget);
  REQUIRE(rx.add_leg(kA, SeqAbs{0}));
  REQUIRE(rx.add_leg(kB, SeqAbs{0}));
  REQUIRE(rx.on_cell(kA, data(1), kT0));
  // B claims its next cell is 1 again: SWITCH(0) first event is allowed, the
  // cell is a duplicate.
  REQUIRE(rx.on_switch(kB, SeqRel{0}));
  CHECK(rx.on_cell(kB, data(1), kT0).error() == ConfluxError::DuplicateSeq);
}

TEST_CASE("receiver rejects a duplicate of a queued cell", "[conflux]") {
  ReorderBudget budget;
  ConfluxReceiver rx(SetId{1}, budget);
  REQUIRE(rx.add_leg(kA, SeqAbs{0}));
  REQUIRE(rx.add_leg(kB, SeqAbs{0}));
  REQUIRE(rx.on_switch(kA, SeqRel{4}));
  REQUIRE(rx.on_cell(kA, data(5), kT0));  // queued
  REQUIRE(rx.on_switch(kB, SeqRel{4}));
  CHECK(rx.on_cell(kB, data(5), kT0).error() == ConfluxError::DuplicateSeq);
}

TEST_CASE("receiver rejects numbers beyond the window", "[conflux]") {
  ReorderBudget budget;
  ReceiverLimits lim;
  lim.seq_window = 100;
  ConfluxReceiver rx(SetId{1}, budget, lim);
  REQUIRE(rx.add_leg(kA, SeqAbs{0}));
  REQUIRE(rx.add_leg(kB, SeqAbs{0}));
  // Jump to 99: the next cell (100) is still within the window.
  REQUIRE(rx.on_switch(kA, SeqRel{99}));
  REQUIRE(rx.on_cell(kA, data(1), kT0));
  // The following cell (101) is not.
  CHECK(rx.on_cell(kA, data(2), kT0).error() == ConfluxError::SeqBeyondWindow);
  // A SWITCH that lands the next cell past the window.
  CHECK(rx.on_switch(kB, SeqRel{100}).error() == ConfluxError::SwitchBeyondWindow);
}

TEST_CASE("SWITCH checks: zero, back to back", "[conflux]") {
  ReorderBudget budget;
  ConfluxReceiver rx(SetId{1}, budget);
  REQUIRE(rx.add_leg(kA, SeqAbs{0}));
  REQUIRE(rx.add_leg(kB, SeqAbs{0}));

  SECTION("zero is accepted only as a leg's first event") {
    REQUIRE(rx.on_switch(kA, SeqRel{0}));
    REQUIRE(rx.on_cell(kA, data(1), kT0));
    CHECK(rx.on_switch(kA, SeqRel{0}).error() == ConfluxError::SwitchZero);
  }
  SECTION("a second SWITCH without a cell between") {
    REQUIRE(rx.on_switch(kB, SeqRel{3}));
    CHECK(rx.on_switch(kB, SeqRel{3}).error() == ConfluxError::SwitchBackToBack);
  }
  SECTION("after a cell, another SWITCH is fine") {
    REQUIRE(rx.on_switch(kB, SeqRel{1}));
    REQUIRE(rx.on_cell(kB, data(2), kT0));
    REQUIRE(rx.on_switch(kB, SeqRel{1}));
    CHECK(rx.leg_last_seq(kB) == SeqAbs{3});
  }
  SECTION("unknown leg") { CHECK(rx.on_switch(LegId{9}, SeqRel{1}).error() == ConfluxError::UnknownLeg); }
}

TEST_CASE("receiver refuses BEGIN_DIR and leg-local commands as set cells", "[conflux]") {
  ReorderBudget budget;
  ConfluxReceiver rx(SetId{1}, budget);
  REQUIRE(rx.add_leg(kA, SeqAbs{0}));
  SeqCell c = data(1);
  c.command = RelayCommand::BeginDir;
  CHECK(rx.on_cell(kA, c, kT0).error() == ConfluxError::BeginDirOnSet);
  c.command = RelayCommand::Sendme;
  c.stream = StreamId{0};  // a circuit SENDME; a stream's is sequenced
  CHECK(rx.on_cell(kA, c, kT0).error() == ConfluxError::NotMultiplexed);
  CHECK(rx.last_delivered() == SeqAbs{0});
  CHECK(rx.leg_last_seq(kA) == SeqAbs{0});
}

TEST_CASE("leg caps and coherent bases", "[conflux]") {
  ReorderBudget budget;
  ReceiverLimits lim;
  lim.max_legs = 2;
  ConfluxReceiver rx(SetId{1}, budget, lim);
  REQUIRE(rx.add_leg(kA, SeqAbs{0}));
  CHECK(rx.add_leg(kA, SeqAbs{0}).error() == ConfluxError::DuplicateLeg);
  // We cannot have advertised more than we delivered.
  CHECK(rx.add_leg(kB, SeqAbs{1}).error() == ConfluxError::SeqIncoherent);
  REQUIRE(rx.add_leg(kB, SeqAbs{0}));
  CHECK(rx.add_leg(LegId{3}, SeqAbs{0}).error() == ConfluxError::TooManyLegs);
  rx.remove_leg(kB);
  CHECK(rx.leg_count() == 1);
  CHECK(rx.on_cell(kB, data(1), kT0).error() == ConfluxError::UnknownLeg);
}
