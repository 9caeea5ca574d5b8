// Conflux retransmission bookkeeping and the LINK/LINKED resynchronisation of
// a replacement leg: no data lost when a leg dies.
#include <catch2/catch.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <vector>

#include "conflux/proto/conflux_receiver.hpp"
#include "conflux/proto/conflux_resync.hpp"
#include "conflux/proto/conflux_retransmit.hpp"
#include "conflux/proto/conflux_sender.hpp"

using namespace conflux;
using namespace conflux::proto;
using cell::RelayCommand;

namespace {

const LegId kA{1};
const LegId kB{2};
const LegId kC{3};
const ConfluxTime kT0{std::chrono::seconds(100)};

SeqCell cell_of(RelayCommand cmd, std::uint8_t tag) {
  SeqCell c;
  c.command = cmd;
  c.body.assign(8, tag);
  return c;
}

}  // namespace

TEST_CASE("retransmit: acks by DATA count free in order, keeping later non-DATA cells", "[conflux]") {
  RetransmitBuffer rb;
  REQUIRE(rb.on_cell_sent(kA, SeqAbs{1}, cell_of(RelayCommand::Begin, 1)));
  REQUIRE(rb.on_cell_sent(kA, SeqAbs{2}, cell_of(RelayCommand::Data, 2)));
  REQUIRE(rb.on_cell_sent(kA, SeqAbs{3}, cell_of(RelayCommand::Data, 3)));
  REQUIRE(rb.on_cell_sent(kA, SeqAbs{5}, cell_of(RelayCommand::End, 5)));
  REQUIRE(rb.on_cell_sent(kA, SeqAbs{6}, cell_of(RelayCommand::Data, 6)));
  CHECK(rb.retained_cells(kA) == 5);
  CHECK(rb.retained_bytes() == 5 * (8 + RetransmitBuffer::kEntryOverhead));

  REQUIRE(rb.on_leg_acked(kA, CellCount{2}));  // BEGIN, DATA 2, DATA 3 known received
  CHECK(rb.retained_cells(kA) == 2);           // END 5 and DATA 6 are not
  CHECK(rb.on_leg_acked(kA, CellCount{2}).error() == ConfluxError::AckBeyondSent);
  rb.on_leg_acked_through(kA, SeqAbs{5});
  CHECK(rb.retained_cells(kA) == 1);
  CHECK(rb.on_cell_sent(kA, SeqAbs{6}, cell_of(RelayCommand::Data, 6)).error() == ConfluxError::SeqIncoherent);
}

TEST_CASE("retransmit: dead legs' cells above what the peer delivered, merged in order", "[conflux]") {
  RetransmitBuffer rb;
  for (std::uint64_t s : {1u, 2u, 5u, 6u}) REQUIRE(rb.on_cell_sent(kA, SeqAbs{s}, cell_of(RelayCommand::Data, static_cast<std::uint8_t>(s))));
  for (std::uint64_t s : {3u, 4u, 7u}) REQUIRE(rb.on_cell_sent(kB, SeqAbs{s}, cell_of(RelayCommand::Data, static_cast<std::uint8_t>(s))));
  const std::array<LegId, 2> dead{kA, kB};
  auto r = rb.cells_to_resend(dead, SeqAbs{2});
  REQUIRE(r);
  std::vector<std::uint64_t> seqs;
  for (const auto& c : *r) {
    seqs.push_back(c.seq.value());
    CHECK(c.cell.body[0] == c.seq.value());
  }
  CHECK(seqs == std::vector<std::uint64_t>{3, 4, 5, 6, 7});
  CHECK(rb.retained_bytes() == 0);
  CHECK(rb.retained_cells(kA) == 0);
}

TEST_CASE("retransmit: the caps bound memory, a leg over them loses its history", "[conflux]") {
  RetransmitLimits lim;
  lim.max_cells_per_leg = 3;
  RetransmitBuffer rb(lim);
  for (std::uint64_t s = 1; s <= 3; ++s) REQUIRE(rb.on_cell_sent(kA, SeqAbs{s}, cell_of(RelayCommand::Data, 0)));
  CHECK(rb.on_cell_sent(kA, SeqAbs{4}, cell_of(RelayCommand::Data, 0)).error() == ConfluxError::RetransmitFull);
  CHECK_FALSE(rb.complete(kA));
  CHECK(rb.retained_bytes() == 0);
  REQUIRE(rb.on_cell_sent(kB, SeqAbs{5}, cell_of(RelayCommand::Data, 0)));
  const std::array<LegId, 1> dead{kA};
  CHECK(rb.cells_to_resend(dead, SeqAbs{0}).error() == ConfluxError::ResendUnavailable);

  RetransmitLimits bytes;
  bytes.max_bytes = 2 * (8 + RetransmitBuffer::kEntryOverhead);
  RetransmitBuffer small(bytes);
  REQUIRE(small.on_cell_sent(kA, SeqAbs{1}, cell_of(RelayCommand::Data, 0)));
  REQUIRE(small.on_cell_sent(kB, SeqAbs{2}, cell_of(RelayCommand::Data, 0)));
  CHECK(small.on_cell_sent(kB, SeqAbs{3}, cell_of(RelayCommand::Data, 0)).error() == ConfluxError::RetransmitFull);
  CHECK(small.retained_bytes() <= bytes.max_bytes);
}

TEST_CASE("resync numbers: a new set starts at 0, and the peer cannot be ahead of us", "[conflux]") {
  auto fresh = plan_resync({}, {}, SeqAbs{0});
  REQUIRE(fresh);
  CHECK(fresh->send_base == SeqAbs{0});
  CHECK(fresh->recv_base == SeqAbs{0});
  CHECK_FALSE(fresh->resend);
  CHECK_FALSE(fresh->peer_in_flight);

  CHECK(plan_resync({SeqAbs{5}, SeqAbs{0}}, {SeqAbs{0}, SeqAbs{6}}, SeqAbs{5}).error() == ConfluxError::SeqIncoherent);

  // We sent 10 (now 12), delivered 7; the peer sent 9, delivered 8.
  auto p = plan_resync({SeqAbs{10}, SeqAbs{7}}, {SeqAbs{9}, SeqAbs{8}}, SeqAbs{12});
  REQUIRE(p);
  CHECK(p->send_base == SeqAbs{8});
  CHECK(p->recv_base == SeqAbs{7});
  CHECK(p->resend);
  CHECK(p->peer_in_flight);
}

namespace {

// Two ends of one set, client to exit direction only (the other direction
// mirrors it): the client's sender and retransmit history, the exit's
// receiver; each end also has the half that would carry the other direction,
// whose numbers go into LINK and LINKED.
struct TwoEnds {
  ConfluxSender tx;
  RetransmitBuffer rb;
  ReorderBudget client_budget;
  ConfluxReceiver client_rx{SetId{1}, client_budget};
  ReorderBudget exit_budget;
  ConfluxReceiver rx{SetId{1}, exit_budget};
  ConfluxSender exit_tx;
  std::vector<std::uint8_t> delivered;
  int duplicates = 0;
  struct Held {
    LegId leg;
    SendPlan plan;
    SeqCell cell;
  };
  std::vector<Held> held;  // still travelling on a live leg

  TwoEnds() {
    for (LegId l : {kA, kB}) {
      REQUIRE(tx.add_leg(l, SeqAbs{0}));
      REQUIRE(client_rx.add_leg(l, SeqAbs{0}));
      REQUIRE(rx.add_leg(l, SeqAbs{0}));
      REQUIRE(exit_tx.add_leg(l, SeqAbs{0}));
    }
  }
  void arrive(LegId leg, const SendPlan& plan, const SeqCell& c) {
    if (plan.switch_first) REQUIRE(rx.on_switch(leg, plan.switch_first->relative_seq));
    auto a = rx.on_cell(leg, c, kT0);
    REQUIRE(a);
    if (a->fate == CellFate::DuplicateDropped) ++duplicates;
    if (a->deliver) delivered.push_back(a->deliver->body[0]);
    while (auto d = rx.pop_ready()) delivered.push_back(d->body[0]);
  }
  enum class Fate { Arrives, Lost, Held };
  void send(LegId leg, std::uint8_t tag, Fate fate) {
    auto plan = tx.prepare_send(leg, RelayCommand::Data);
    REQUIRE(plan);
    const SeqCell c = cell_of(RelayCommand::Data, tag);
    REQUIRE(rb.on_cell_sent(leg, plan->seq, c));
    if (fate == Fate::Arrives) arrive(leg, *plan, c);
    if (fate == Fate::Held) held.push_back(Held{leg, *plan, c});
  }
  void release() {
    for (auto& h : held) arrive(h.leg, h.plan, h.cell);
    held.clear();
  }
  // 'dead' died; C replaces it through LINK / LINKED; the lost cells are resent.
  void replace(LegId dead) {
    tx.remove_leg(dead);
    client_rx.remove_leg(dead);
    rx.remove_leg(dead);
    exit_tx.remove_leg(dead);
    const LinkNumbers link = advertised_numbers(tx, client_rx);
    const LinkNumbers linked = advertised_numbers(exit_tx, rx);
    auto exit_plan = plan_resync(linked, link, exit_tx.last_seq_sent());
    REQUIRE(exit_plan);
    REQUIRE(rx.add_leg(kC, exit_plan->recv_base));
    REQUIRE(exit_tx.add_leg(kC, exit_plan->send_base));
    auto client_plan = plan_resync(link, linked, tx.last_seq_sent());
    REQUIRE(client_plan);
    REQUIRE(tx.add_leg(kC, client_plan->send_base));
    REQUIRE(client_rx.add_leg(kC, client_plan->recv_base));
    const std::array<LegId, 1> gone{dead};
    auto resend = rb.cells_to_resend(gone, client_plan->send_base);
    REQUIRE(resend);
    for (auto& r : *resend) {
      auto plan = tx.prepare_resend(kC, r.seq);
      REQUIRE(plan);
      REQUIRE(rb.on_cell_sent(kC, r.seq, r.cell));
      arrive(kC, *plan, r.cell);
    }
  }
};

}  // namespace

TEST_CASE("a leg dies with data in flight: the replacement leg resends and nothing is lost", "[conflux]") {
  TwoEnds e;
  // 1-3 on A arrive; 4-5 on B arrive; 6-7 on A are lost with A; 8 on B arrives.
  e.send(kA, 1, TwoEnds::Fate::Arrives);
  e.send(kA, 2, TwoEnds::Fate::Arrives);
  e.send(kA, 3, TwoEnds::Fate::Arrives);
  e.send(kB, 4, TwoEnds::Fate::Arrives);
  e.send(kB, 5, TwoEnds::Fate::Arrives);
  e.send(kA, 6, TwoEnds::Fate::Lost);
  e.send(kA, 7, TwoEnds::Fate::Lost);
  e.send(kB, 8, TwoEnds::Fate::Arrives);
  CHECK(e.delivered == std::vector<std::uint8_t>{1, 2, 3, 4, 5});
  CHECK(e.rx.queued_cells() == 1);  // 8 waits for 6 and 7
  REQUIRE(e.rb.on_leg_acked(kA, CellCount{2}));  // A's SENDMEs covered 1-2

  e.replace(kA);
  CHECK(e.delivered == std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(e.duplicates == 0);
  // New data continues on C and B with ordinary SWITCHes.
  e.send(kC, 9, TwoEnds::Fate::Arrives);
  e.send(kB, 10, TwoEnds::Fate::Arrives);
  e.send(kC, 11, TwoEnds::Fate::Arrives);
  CHECK(e.delivered == std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  CHECK(e.rx.queued_cells() == 0);
}

TEST_CASE("resent copies of cells the peer already queued are dropped", "[conflux]") {
  TwoEnds e;
  // 1 is still travelling on B; 2 on A arrives and waits for it; A dies.
  e.send(kB, 1, TwoEnds::Fate::Held);
  e.send(kA, 2, TwoEnds::Fate::Arrives);
  CHECK(e.delivered.empty());
  e.replace(kA);  // the exit delivered nothing: 2 is resent, and is a copy
  CHECK(e.duplicates == 1);
  e.release();
  CHECK(e.delivered == std::vector<std::uint8_t>{1, 2});
  e.send(kC, 3, TwoEnds::Fate::Arrives);
  CHECK(e.delivered == std::vector<std::uint8_t>{1, 2, 3});
}

TEST_CASE("a duplicate beyond a replacement leg's allowance closes the set", "[conflux]") {
  ReorderBudget budget;
  ReceiverLimits lim;
  lim.resend_allowance_cells = 1;
  ConfluxReceiver rx(SetId{1}, budget, lim);
  REQUIRE(rx.add_leg(kA, SeqAbs{0}));
  for (int i = 0; i < 3; ++i) REQUIRE(rx.on_cell(kA, cell_of(RelayCommand::Data, 0), kT0));
  REQUIRE(rx.add_leg(kC, SeqAbs{1}));  // advertised when 1 was delivered
  auto first = rx.on_cell(kC, cell_of(RelayCommand::Data, 0), kT0);
  REQUIRE(first);
  CHECK(first->fate == CellFate::DuplicateDropped);
  CHECK(rx.on_cell(kC, cell_of(RelayCommand::Data, 0), kT0).error() == ConfluxError::DuplicateSeq);
}

TEST_CASE("retransmit: the peer's delivery frees every leg, and DATA acks still free the right cells after it",
          "[conflux]") {
  RetransmitBuffer rb;
  const LegId a{1}, b{2};
  REQUIRE(rb.on_cell_sent(a, SeqAbs{1}, cell_of(RelayCommand::Sendme, 1)));
  REQUIRE(rb.on_cell_sent(b, SeqAbs{2}, cell_of(RelayCommand::Sendme, 2)));
  REQUIRE(rb.on_cell_sent(a, SeqAbs{3}, cell_of(RelayCommand::Data, 3)));
  REQUIRE(rb.on_cell_sent(a, SeqAbs{4}, cell_of(RelayCommand::Sendme, 4)));
  REQUIRE(rb.on_cell_sent(a, SeqAbs{5}, cell_of(RelayCommand::Data, 5)));
  REQUIRE(rb.on_cell_sent(b, SeqAbs{6}, cell_of(RelayCommand::Sendme, 6)));
  rb.on_peer_delivered(SeqAbs{3});
  CHECK(rb.retained_cells(a) == 2);  // 4 and 5
  CHECK(rb.retained_cells(b) == 1);  // 6
  // Leg a's first DATA cell (3) is gone already; one DATA ack frees it and
  // nothing more: 4 and 5 stay.
  REQUIRE(rb.on_leg_acked(a, CellCount{1}));
  CHECK(rb.retained_cells(a) == 2);
  REQUIRE(rb.on_leg_acked(a, CellCount{1}));
  CHECK(rb.retained_cells(a) == 0);
  CHECK(rb.on_leg_acked(a, CellCount{1}).error() == ConfluxError::AckBeyondSent);
  const std::array<LegId, 1> dead{b};
  auto owed = rb.cells_to_resend(dead, SeqAbs{0});
  REQUIRE(owed);
  REQUIRE(owed->size() == 1);
  CHECK((*owed)[0].seq == SeqAbs{6});
}
