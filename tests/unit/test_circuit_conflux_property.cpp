// Randomized property test of a Conflux set, client to exit direction:
// 2-4 legs, the sender moves between legs in random runs, each leg is an
// in-order FIFO (a circuit) and the legs are drained in random interleaving
// (reordering across legs). Legs die at random with cells in flight; a
// replacement leg is linked with LINK/LINKED numbers taken at different
// moments, and the dead leg's unacknowledged cells are resent on it, so the
// receiver sees duplicates. Or a surviving leg is relinked (LINK behind the
// cells already on it, nothing sent on it until LINKED) and the cells are
// resent on it, below numbers it already carried; a replacement may link
// later. Properties: the delivered stream equals the sent
// stream exactly, and the reorder and retransmit memory never exceed their
// caps. Deterministic seeds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <vector>

#include "conflux/proto/conflux_receiver.hpp"
#include "conflux/proto/conflux_resync.hpp"
#include "conflux/proto/conflux_retransmit.hpp"
#include "conflux/proto/conflux_sender.hpp"

using namespace conflux;
using namespace conflux::proto;
using cell::RelayCommand;

namespace {

constexpr std::array<RelayCommand, 8> kCommands{RelayCommand::Begin,   RelayCommand::Data,     RelayCommand::End,
                                                RelayCommand::Connected, RelayCommand::Resolve, RelayCommand::Resolved,
                                                RelayCommand::Xoff,    RelayCommand::Xon};
constexpr std::uint64_t kAckEvery = 5;  // DATA cells per (instant) SENDME

struct Event {
  std::optional<SeqRel> switch_rel;  // a SWITCH, or else the cell
  SeqCell cell;
  bool relink = false;  // the client's LINK on a live leg, instead of either
};

struct Sim {
  explicit Sim(std::uint64_t seed) : rng(seed) {}

  std::mt19937_64 rng;
  ReorderBudgetConfig budget_cfg{std::size_t{2} << 20, std::size_t{1} << 20};
  ReorderBudget exit_budget{budget_cfg};
  ReceiverLimits rx_limits{};
  ConfluxReceiver rx{SetId{1}, exit_budget, rx_limits};
  ConfluxSender exit_tx;
  ReorderBudget client_budget;
  ConfluxReceiver client_rx{SetId{1}, client_budget};
  ConfluxSender tx;
  RetransmitBuffer rb;

  std::vector<LegId> legs;
  std::map<LegId, std::deque<Event>> wire;
  std::map<LegId, std::uint64_t> data_seen;  // per leg, for SENDMEs
  std::uint32_t next_leg = 1;

  // A relink in progress: the leg, the dead leg whose cells it takes, the
  // client's LINK numbers; once the exit processed the LINK, its LINKED
  // numbers and how many more arrivals before the LINKED reaches the client.
  struct Relink {
    LegId leg{};
    LegId dead{};
    LinkNumbers link;
    std::optional<LinkNumbers> linked;
    std::uint64_t linked_after = 0;
  };
  std::optional<Relink> relink;
  std::size_t relinks = 0;

  std::vector<SeqCell> sent;
  std::vector<SeqCell> delivered;
  std::size_t duplicates = 0;
  std::size_t max_reorder_bytes = 0;

  std::uint64_t pick(std::uint64_t n) { return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(rng); }

  void check_memory() {
    REQUIRE(exit_budget.used_bytes() <= budget_cfg.cap_bytes);
    REQUIRE(rx.queued_bytes() <= rx_limits.max_set_bytes);
    REQUIRE(rb.retained_bytes() <= RetransmitLimits{}.max_bytes);
    max_reorder_bytes = std::max(max_reorder_bytes, rx.queued_bytes());
  }

  void add_leg_all(LegId l) {
    REQUIRE(tx.add_leg(l, SeqAbs{0}));
    REQUIRE(client_rx.add_leg(l, SeqAbs{0}));
    REQUIRE(rx.add_leg(l, SeqAbs{0}));
    REQUIRE(exit_tx.add_leg(l, SeqAbs{0}));
    legs.push_back(l);
  }

  SeqCell random_cell() {
    SeqCell c;
    c.command = kCommands[pick(kCommands.size())];
    c.stream = StreamId{static_cast<std::uint16_t>(1 + pick(4))};
    c.body.resize(pick(499));
    for (auto& b : c.body) b = static_cast<std::uint8_t>(pick(256));
    return c;
  }

  void put(LegId leg, const SendPlan& plan, SeqCell c) {
    if (plan.switch_first) wire[leg].push_back(Event{plan.switch_first->relative_seq, {}});
    wire[leg].push_back(Event{std::nullopt, std::move(c)});
  }

  void send_new(LegId leg) {
    SeqCell c = random_cell();
    auto plan = tx.prepare_send(leg, c.command);
    REQUIRE(plan);
    REQUIRE(rb.on_cell_sent(leg, plan->seq, c));
    sent.push_back(c);
    put(leg, *plan, std::move(c));
  }

  // The exit takes the next event from one leg.
  void arrive(LegId leg) {
    auto& q = wire[leg];
    Event ev = std::move(q.front());
    q.pop_front();
    if (ev.relink) {
      // The exit renumbers the leg before it answers LINKED on it.
      REQUIRE(relink);
      const LinkNumbers linked = advertised_numbers(exit_tx, rx);
      auto exit_plan = plan_resync(linked, relink->link, exit_tx.last_seq_sent());
      REQUIRE(exit_plan);
      REQUIRE(rx.rebase_leg(leg, exit_plan->recv_base));
      REQUIRE(exit_tx.rebase_leg(leg, exit_plan->send_base));
      relink->linked = linked;
      relink->linked_after = pick(4);
      return;
    }
    if (ev.switch_rel) {
      REQUIRE(rx.on_switch(leg, *ev.switch_rel));
      return;
    }
    const bool is_data = ev.cell.command == RelayCommand::Data;
    auto a = rx.on_cell(leg, std::move(ev.cell), ConfluxTime{std::chrono::milliseconds(sent.size())});
    REQUIRE(a);
    // SENDMEs count on arrival, before reordering (prop 329 2.5).
    if (is_data && ++data_seen[leg] % kAckEvery == 0) REQUIRE(rb.on_leg_acked(leg, CellCount{kAckEvery}));
    if (a->fate == CellFate::DuplicateDropped) ++duplicates;
    if (a->deliver) delivered.push_back(std::move(*a->deliver));
    while (auto c = rx.pop_ready()) delivered.push_back(std::move(*c));
    check_memory();
  }

  bool arrive_random() {
    std::vector<LegId> busy;
    for (LegId l : legs)
      if (!wire[l].empty()) busy.push_back(l);
    if (busy.empty()) return false;
    arrive(busy[pick(busy.size())]);
    return true;
  }

  void kill(LegId dead) {
    wire.erase(dead);
    legs.erase(std::find(legs.begin(), legs.end(), dead));
    tx.remove_leg(dead);
    client_rx.remove_leg(dead);
    rx.remove_leg(dead);
    exit_tx.remove_leg(dead);
  }

  // Resends the dead leg's cells the peer has not delivered on `leg`.
  void resend(LegId dead, LegId leg, SeqAbs peer_delivered) {
    const std::array<LegId, 1> gone{dead};
    auto cells = rb.cells_to_resend(gone, peer_delivered);
    REQUIRE(cells);
    for (auto& r : *cells) {
      auto plan = tx.prepare_resend(leg, r.seq);
      REQUIRE(plan);
      REQUIRE(rb.on_cell_sent(leg, r.seq, r.cell));
      put(leg, *plan, std::move(r.cell));
    }
  }

  // 'dead' dies with whatever it still carries; a surviving leg is
  // relinked: the client's LINK goes behind the cells already on it.
  void kill_and_relink(LegId dead) {
    kill(dead);
    const LegId leg = legs[pick(legs.size())];
    relink = Relink{leg, dead, advertised_numbers(tx, client_rx), std::nullopt, 0};
    Event marker;
    marker.relink = true;
    wire[leg].push_back(std::move(marker));
  }

  // The LINKED reached the client: it renumbers the leg and resends on it.
  void finish_relink() {
    const Relink r = *relink;
    relink.reset();
    auto client_plan = plan_resync(r.link, *r.linked, tx.last_seq_sent());
    REQUIRE(client_plan);
    REQUIRE(tx.rebase_leg(r.leg, client_plan->send_base));
    REQUIRE(client_rx.rebase_leg(r.leg, client_plan->recv_base));
    rb.restart_leg(r.leg);
    resend(r.dead, r.leg, client_plan->send_base);
    ++relinks;
  }

  // After each arrival: the LINKED of a relink travels back.
  void relink_progress() {
    if (!relink || !relink->linked) return;
    if (relink->linked_after > 0) {
      --relink->linked_after;
      return;
    }
    finish_relink();
  }

  // 'dead' dies with whatever it still carries; a new leg is linked.
  void kill_and_replace(LegId dead) {
    kill(dead);
    link_fresh(dead);
  }

  // A new leg links; `dead` (if any) is the leg whose cells it takes.
  void link_fresh(std::optional<LegId> dead) {
    const LegId fresh{next_leg++};
    const LinkNumbers link = advertised_numbers(tx, client_rx);  // client sends LINK
    for (std::uint64_t i = pick(4); i > 0; --i) arrive_random();  // surviving legs move on
    const LinkNumbers linked = advertised_numbers(exit_tx, rx);  // exit answers LINKED
    auto exit_plan = plan_resync(linked, link, exit_tx.last_seq_sent());
    REQUIRE(exit_plan);
    REQUIRE(rx.add_leg(fresh, exit_plan->recv_base));
    REQUIRE(exit_tx.add_leg(fresh, exit_plan->send_base));
    for (std::uint64_t i = pick(3); i > 0; --i) arrive_random();  // LINKED travels
    auto client_plan = plan_resync(link, linked, tx.last_seq_sent());
    REQUIRE(client_plan);
    REQUIRE(tx.add_leg(fresh, client_plan->send_base));
    REQUIRE(client_rx.add_leg(fresh, client_plan->recv_base));
    legs.push_back(fresh);
    if (dead) resend(*dead, fresh, client_plan->send_base);
  }

  void run(std::size_t cells, int deaths) {
    const auto leg_count = 2 + pick(3);
    for (std::uint64_t i = 0; i < leg_count; ++i) add_leg_all(LegId{next_leg++});
    LegId current = legs[0];
    while (sent.size() < cells) {
      // Runs on one leg, like a real scheduler; never on a relinking leg.
      std::vector<LegId> usable;
      for (LegId l : legs)
        if (!relink || relink->leg != l) usable.push_back(l);
      if (!usable.empty()) {
        if (pick(4) == 0 || std::find(usable.begin(), usable.end(), current) == usable.end())
          current = usable[pick(usable.size())];
        send_new(current);
      }
      for (std::uint64_t i = pick(3) + (usable.empty() ? 1 : 0); i > 0; --i) {
        arrive_random();
        relink_progress();
      }
      if (deaths > 0 && !relink && pick(cells / 4 + 1) == 0) {
        --deaths;
        if (legs.size() >= 2 && pick(2) == 0) {
          kill_and_relink(legs[pick(legs.size())]);
          if (pick(2) == 0) link_fresh(std::nullopt);  // the replacement may come early
        } else {
          kill_and_replace(legs[pick(legs.size())]);
        }
      }
    }
    while (arrive_random() || relink) relink_progress();
  }
};

}  // namespace

TEST_CASE("property: delivered stream equals sent stream, memory within caps", "[conflux][property]") {
  std::size_t total_dups = 0;
  std::size_t total_cells = 0;
  std::size_t max_reorder = 0;
  std::size_t total_relinks = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    INFO("seed " << seed);
    Sim sim(seed);
    sim.run(50 + sim.pick(400), static_cast<int>(seed % 3));
    REQUIRE(sim.delivered.size() == sim.sent.size());
    REQUIRE(sim.delivered == sim.sent);
    REQUIRE(sim.rx.queued_cells() == 0);
    REQUIRE(sim.exit_budget.used_bytes() == 0);
    total_dups += sim.duplicates;
    total_relinks += sim.relinks;
    total_cells += sim.sent.size();
    max_reorder = std::max(max_reorder, sim.max_reorder_bytes);
  }
  // The runs must actually exercise reordering and resending.
  CHECK(total_dups > 0);
  CHECK(max_reorder > 0);
  CHECK(total_relinks > 20);
  CHECK(total_cells > 300 * 50);
}

TEST_CASE("property: under a tight shared budget, refusals keep memory at or below the cap", "[conflux][property]") {
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    const std::size_t cap = 4096 + rng() % 8192;
    ReorderBudget budget({cap, cap / 2});
    ConfluxReceiver a(SetId{1}, budget);
    ConfluxReceiver b(SetId{2}, budget);
    std::array<ConfluxReceiver*, 2> sets{&a, &b};
    for (auto* s : sets) {
      REQUIRE(s->add_leg(LegId{1}, SeqAbs{0}));
      REQUIRE(s->on_switch(LegId{1}, SeqRel{1}));  // cell 1 never comes: all queue
    }
    bool refused = false;
    for (int i = 0; i < 200 && !refused; ++i) {
      SeqCell c;
      c.body.resize(rng() % 499);
      auto r = sets[rng() % 2]->on_cell(LegId{1}, c, ConfluxTime{std::chrono::seconds(i)});
      if (!r) {
        CHECK((r.error() == ConfluxError::GlobalQueueFull || r.error() == ConfluxError::SetQueueFull));
        refused = true;
      }
      REQUIRE(budget.used_bytes() <= cap);
      if (budget.under_pressure()) {
        const auto shed = budget.sets_to_close();
        REQUIRE_FALSE(shed.empty());
      }
    }
    CHECK(refused);
  }
}
