// proto::ConfluxSet: two ends wired through simulated legs (one FIFO per
// direction and leg, with its own delay), circuit SENDMEs every 100 DATA
// cells as the circuit layer sends them, legs dying with cells in flight.
#include <catch2/catch.hpp>

#include <deque>
#include <map>
#include <set>

#include "conflux/proto/conflux_set.hpp"

using namespace conflux;
using namespace conflux::proto;
using namespace std::chrono_literals;

namespace {

ConfluxTime t0() { return ConfluxTime{} + std::chrono::hours(1); }

cell::DataMsg data_of(std::uint32_t n) {
  cell::DataMsg d;
  for (int i = 0; i < 4; ++i) d.data.push_back(static_cast<std::uint8_t>(n >> (8 * i)));
  d.data.resize(100, 0xAB);
  return d;
}

std::uint32_t number_of(const cell::RelayMsg& m) {
  const auto& d = std::get<cell::DataMsg>(m).data;
  std::uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n |= static_cast<std::uint32_t>(d[static_cast<std::size_t>(i)]) << (8 * i);
  return n;
}

// Sender `tx` -> receiver `rx` over legs with per-leg one-way delays. The
// receiver's circuit layer answers every 100th DATA cell of a leg with a
// circuit SENDME that takes the same delay back.
struct Harness {
  struct InFlight {
    ConfluxTime at;
    LegCell cell;
  };
  ReorderBudget budget_tx, budget_rx;
  ConfluxSet tx, rx;
  std::map<std::uint32_t, std::chrono::milliseconds> delay;
  std::map<std::uint32_t, std::deque<InFlight>> wire;     // tx -> rx
  std::map<std::uint32_t, std::deque<ConfluxTime>> acks;  // rx -> tx SENDMEs
  // Relinking a live leg (LINK/LINKED again on it). `rx_first`: the receiver
  // is the client (a download: it sends the LINK), else the sender is.
  struct Relink {
    ConfluxTime at;
    LinkNumbers numbers;  // what the message carries
  };
  std::map<std::uint32_t, std::deque<Relink>> back;  // rx -> tx: LINK (download) or LINKED (upload)
  std::map<std::uint32_t, LinkNumbers> client_ours;  // what the client's LINK said
  std::map<std::uint32_t, std::uint32_t> data_seen;       // per leg at rx
  std::vector<std::uint32_t> delivered;
  int ends = 0;
  std::map<std::uint32_t, std::uint64_t> carried;         // DATA cells per leg
  std::set<std::uint32_t> stalled;  // legs whose cells wait on the wire (a starved relay)
  ConfluxTime now = t0();

  explicit Harness(ConfluxSetConfig cfg = {}) : tx(SetId{1}, budget_tx, cfg), rx(SetId{2}, budget_rx, cfg) {}

  void link(std::uint32_t leg, std::chrono::milliseconds d) {
    delay[leg] = d;
    const auto ours_tx = tx.advertise();
    const auto ours_rx = rx.advertise();
    REQUIRE(rx.add_leg(LegId{leg}, ours_rx, ours_tx, 2 * d, now));
    REQUIRE(tx.add_leg(LegId{leg}, ours_tx, ours_rx, 2 * d, now));
    put(tx.flush(now));
  }
  void put(const std::vector<LegCell>& cells) {
    for (const auto& c : cells) {
      if (std::holds_alternative<cell::DataMsg>(c.msg)) ++carried[c.leg.value()];
      wire[c.leg.value()].push_back(InFlight{now + delay.at(c.leg.value()), c});
    }
  }
  // The receiver (as a client) relinks a live leg: LINK goes back to the
  // sender, which answers LINKED on the leg, behind the cells it sent there.
  void relink_from_rx(std::uint32_t leg) {
    client_ours[leg] = rx.advertise();
    REQUIRE(rx.begin_relink(LegId{leg}));
    back[leg].push_back(Relink{now + delay.at(leg), client_ours[leg]});
  }
  // The sender (as a client) relinks a live leg: its LINK goes behind its
  // cells on the leg; until the LINKED, nothing sequenced goes on it.
  void relink_from_tx(std::uint32_t leg) {
    client_ours[leg] = tx.advertise();
    REQUIRE(tx.begin_relink(LegId{leg}));
    cell::ConfluxLinkMsg link;
    link.last_seqno_sent = client_ours[leg].last_seqno_sent;
    link.last_seqno_recv = client_ours[leg].last_seqno_recv;
    wire[leg].push_back(InFlight{now + delay.at(leg), LegCell{LegId{leg}, StreamId{0}, link}});
  }
  // Kills a leg: everything in flight on it is lost, both ends forget it.
  void kill(std::uint32_t leg) {
    wire.erase(leg);
    acks.erase(leg);
    back.erase(leg);
    data_seen.erase(leg);
    tx.leg_closed(LegId{leg});
    rx.leg_closed(LegId{leg});
  }
  // Delivers everything due by `until`, in time order.
  void run_until(ConfluxTime until) {
    for (;;) {
      std::optional<ConfluxTime> next;
      for (auto& [l, q] : wire)
        if (!q.empty() && stalled.count(l) == 0 && (!next || q.front().at < *next)) next = q.front().at;
      for (auto& [l, q] : acks)
        if (!q.empty() && (!next || q.front() < *next)) next = q.front();
      for (auto& [l, q] : back)
        if (!q.empty() && (!next || q.front().at < *next)) next = q.front().at;
      if (!next || *next > until) break;
      now = std::max(now, *next);
      for (auto& [l, q] : acks)
        while (!q.empty() && q.front() <= now) {
          q.pop_front();
          REQUIRE(tx.on_leg_sendme(LegId{l}, now));
          put(tx.flush(now));
        }
      for (auto& [l, q] : back)
        while (!q.empty() && q.front().at <= now) {
          const LinkNumbers peer = q.front().numbers;
          q.pop_front();
          if (tx.relinking(LegId{l})) {
            // Upload: the exit's LINKED reached the client (the sender).
            REQUIRE(tx.relink_leg(LegId{l}, client_ours.at(l), peer, 2 * delay.at(l), now));
          } else {
            // Download: the client's LINK reached the exit (the sender),
            // which renumbers the leg and answers LINKED on it.
            const LinkNumbers ours = tx.advertise();
            REQUIRE(tx.relink_leg(LegId{l}, ours, peer, RttDuration{0}, now));
            cell::ConfluxLinkedMsg linked;
            linked.last_seqno_sent = ours.last_seqno_sent;
            linked.last_seqno_recv = ours.last_seqno_recv;
            wire[l].push_back(InFlight{now + delay.at(l), LegCell{LegId{l}, StreamId{0}, linked}});
          }
          put(tx.flush(now));
        }
      for (auto& [l, q] : wire)
        while (!q.empty() && q.front().at <= now && stalled.count(l) == 0) {
          LegCell c = std::move(q.front().cell);
          q.pop_front();
          if (auto* sw = std::get_if<cell::ConfluxSwitchMsg>(&c.msg)) {
            REQUIRE(rx.on_switch(LegId{l}, *sw));
            continue;
          }
          if (auto* linked = std::get_if<cell::ConfluxLinkedMsg>(&c.msg)) {
            REQUIRE(rx.relink_leg(LegId{l}, client_ours.at(l), {linked->last_seqno_sent, linked->last_seqno_recv},
                                  2 * delay.at(l), now));
            continue;
          }
          if (auto* link = std::get_if<cell::ConfluxLinkMsg>(&c.msg)) {
            const LinkNumbers ours = rx.advertise();
            REQUIRE(rx.relink_leg(LegId{l}, ours, {link->last_seqno_sent, link->last_seqno_recv}, RttDuration{0},
                                  now));
            back[l].push_back(Relink{now + delay.at(l), ours});
            continue;
          }
          if (std::holds_alternative<cell::DataMsg>(c.msg) && ++data_seen[l] % 100 == 0)
            acks[l].push_back(now + delay.at(l));
          auto out = rx.on_cell(LegId{l}, c.stream, c.msg, now);
          REQUIRE(out);
          for (auto& m : *out) {
            if (std::holds_alternative<cell::DataMsg>(m.msg)) delivered.push_back(number_of(m.msg));
            else if (std::holds_alternative<cell::EndMsg>(m.msg)) ++ends;
          }
        }
    }
    now = std::max(now, until);
  }
  // Sends the next cells while a window is open.
  void send_ready(std::uint32_t& n) {
    while (tx.can_send_data(now)) {
      auto out = tx.send(StreamId{1}, data_of(n), now);
      REQUIRE(out);
      put(*out);
      ++n;
    }
  }
  // Two legs (10 and 30 ms) carry 8000 cells; leg 2 dies with cells in
  // flight. Returns the next cell number.
  std::uint32_t two_legs_then_leg_2_dies() {
    link(1, std::chrono::milliseconds(10));
    link(2, std::chrono::milliseconds(30));
    std::uint32_t n = pump(0, 6000);
    n = pump(n, 8000, std::chrono::milliseconds(2));
    REQUIRE(!wire[2].empty());
    kill(2);
    return n;
  }
  // Sends cells numbered [from, to) as fast as the windows allow.
  std::uint32_t pump(std::uint32_t from, std::uint32_t to, std::chrono::milliseconds step = 1ms) {
    std::uint32_t n = from;
    for (int guard = 0; n < to && guard < 1000000; ++guard) {
      while (n < to && tx.can_send_data(now)) {
        auto out = tx.send(StreamId{1}, data_of(n), now);
        REQUIRE(out);
        put(*out);
        ++n;
      }
      run_until(now + step);
    }
    return n;
  }
};

bool in_order(const std::vector<std::uint32_t>& v, std::uint32_t count) {
  if (v.size() != count) return false;
  for (std::uint32_t i = 0; i < count; ++i)
    if (v[i] != i) return false;
  return true;
}

}  // namespace

TEST_CASE("conflux set: two legs carry a stream in order, both used, with SWITCHes in runs") {
  Harness h;
  h.link(1, 10ms);
  h.link(2, 40ms);
  REQUIRE(h.pump(0, 20000) == 20000);
  h.run_until(h.now + 1s);
  CHECK(in_order(h.delivered, 20000));
  CHECK(h.carried[1] > 0);
  CHECK(h.carried[2] > 0);
  CHECK(h.carried[1] + h.carried[2] == 20000);
  const auto legs = h.tx.legs();
  REQUIRE(legs.size() == 2);
  CHECK(legs[0].srtt.count() > 0);
  CHECK(legs[1].srtt > legs[0].srtt);
  CHECK(h.tx.stats().switches_sent > 0);
  CHECK(h.tx.sched_stats().cells_per_switch() >= 32.0);
  CHECK(h.rx.stats().switches_received == h.tx.stats().switches_sent);
  CHECK(h.rx.reorder_cells() == 0);
  CHECK(h.budget_rx.used_bytes() == 0);
  // Every DATA cell acknowledged: nothing left to resend.
  CHECK(h.tx.retained_bytes() < 200 * (100 + RetransmitBuffer::kEntryOverhead));
}

TEST_CASE("conflux set: DATA waits for a window, control messages do not") {
  Harness h;
  h.link(1, 10ms);
  std::uint32_t sent = 0;
  while (h.tx.can_send_data(h.now)) {
    auto out = h.tx.send(StreamId{1}, data_of(sent), h.now);
    REQUIRE(out);
    h.put(*out);
    ++sent;
  }
  CHECK(sent == 1000);  // the circuit window
  auto refused = h.tx.send(StreamId{1}, data_of(sent), h.now);
  REQUIRE_FALSE(refused);
  CHECK(refused.error() == ConfluxError::WindowClosed);
  auto end = h.tx.send(StreamId{1}, cell::EndMsg{cell::EndReason::Done, std::nullopt}, h.now);
  REQUIRE(end);
  CHECK(end->size() == 1);
  auto dir = h.tx.send(StreamId{2}, cell::BeginDirMsg{}, h.now);
  REQUIRE_FALSE(dir);
  CHECK(dir.error() == ConfluxError::BeginDirOnSet);
  auto sendme = h.tx.send(StreamId{0}, cell::SendmeMsg{}, h.now);
  REQUIRE_FALSE(sendme);
  CHECK(sendme.error() == ConfluxError::NotMultiplexed);
}

TEST_CASE("conflux set: a leg dies with cells in flight, the replacement gets them and nothing is lost") {
  Harness h;
  h.link(1, 10ms);
  h.link(2, 30ms);
  std::uint32_t n = h.pump(0, 6000);
  REQUIRE(n == 6000);
  // Some cells are in flight on both legs now; more go out, then leg 2 dies.
  n = h.pump(6000, 8000, 2ms);
  REQUIRE(!h.wire[2].empty());
  h.kill(2);
  CHECK(h.tx.awaiting_replacement());
  // The surviving leg carries on meanwhile.
  n = h.pump(n, 9000);
  // The client links a replacement; the cells leg 2 lost are resent on it.
  h.link(3, 20ms);
  CHECK_FALSE(h.tx.awaiting_replacement());
  CHECK(h.tx.stats().cells_resent > 0);
  n = h.pump(n, 12000);
  h.run_until(h.now + 2s);
  CHECK(in_order(h.delivered, 12000));
  CHECK(h.budget_rx.used_bytes() == 0);
}

TEST_CASE("conflux set: a message sent while no leg is alive goes out on the next leg") {
  Harness h;
  h.link(1, 10ms);
  h.kill(1);
  auto sendme = h.tx.send(StreamId{1}, cell::SendmeMsg{}, h.now);
  REQUIRE(sendme);
  CHECK(sendme->empty());
  auto end = h.tx.send(StreamId{1}, cell::EndMsg{cell::EndReason::Done, std::nullopt}, h.now);
  REQUIRE(end);
  h.link(2, 10ms);  // puts flush() on the wire
  h.run_until(h.now + 1s);
  CHECK(h.ends == 1);
  CHECK(h.rx.stats().cells_delivered == 2);
}

TEST_CASE("conflux set: the last leg dies, held messages and lost cells go on the next leg") {
  Harness h;
  h.link(1, 10ms);
  REQUIRE(h.pump(0, 500) == 500);
  h.kill(1);
  CHECK(h.tx.live_legs() == 0);
  CHECK_FALSE(h.tx.can_send_data(h.now));
  // END while no leg is alive waits in the set, after the lost DATA.
  auto end = h.tx.send(StreamId{1}, cell::EndMsg{cell::EndReason::Done, std::nullopt}, h.now);
  REQUIRE(end);
  CHECK(end->empty());
  h.link(2, 10ms);
  h.run_until(h.now + 1s);
  CHECK(in_order(h.delivered, 500));
  CHECK(h.ends == 1);
}

TEST_CASE("conflux set: cells that arrived out of order on a dead leg are resent and dropped as duplicates") {
  ConfluxSetConfig cfg;
  cfg.scheduler = LegSchedKind::Proportional;
  Harness h(cfg);
  h.link(1, 10ms);
  h.link(2, 10ms);
  std::uint32_t n = 0;
  while (n < 96) {
    auto out = h.tx.send(StreamId{1}, data_of(n++), h.now);
    REQUIRE(out);
    h.put(*out);
  }
  // Find the leg whose cells come later in the sequence; only its cells
  // arrive (they wait for the gap), then it dies before any SENDME.
  std::uint32_t late = 0, early = 0;
  for (auto& [l, q] : h.wire)
    for (auto& f : q)
      if (auto* d = std::get_if<cell::DataMsg>(&f.cell.msg); d && number_of(f.cell.msg) == 0) early = l;
  REQUIRE(early != 0);
  late = early == 1 ? 2 : 1;
  REQUIRE(!h.wire[late].empty());
  auto early_cells = std::move(h.wire[early]);
  h.wire.erase(early);
  h.run_until(h.now + 20ms);
  REQUIRE(h.delivered.empty());
  REQUIRE(h.rx.reorder_cells() > 0);
  h.kill(late);
  h.link(3, 10ms);
  h.wire[early] = std::move(early_cells);
  h.run_until(h.now + 1s);
  CHECK(in_order(h.delivered, n));
  CHECK(h.tx.stats().cells_resent > 0);
  CHECK(h.rx.stats().duplicates_dropped == h.tx.stats().cells_resent);
  CHECK(h.budget_rx.used_bytes() == 0);
}

TEST_CASE("conflux set: a leg dies mid-download, the client relinks the surviving leg and gets the lost cells on it") {
  // tx is the exit sending a download; rx is the client, which relinks.
  Harness h;
  std::uint32_t n = h.two_legs_then_leg_2_dies();
  h.relink_from_rx(1);
  // Data keeps flowing on leg 1 while the LINK travels; the lost cells come
  // after the LINKED, below numbers leg 1 already carried.
  n = h.pump(n, 12000);
  h.run_until(h.now + 2s);
  CHECK(in_order(h.delivered, 12000));
  CHECK_FALSE(h.tx.awaiting_replacement());
  CHECK(h.tx.stats().cells_resent > 0);
  CHECK(h.tx.stats().cells_resent_on_relinked == h.tx.stats().cells_resent);
  CHECK(h.tx.stats().legs_relinked == 1);
  CHECK(h.rx.stats().legs_relinked == 1);
  CHECK(h.tx.live_legs() == 1);
  CHECK(h.budget_rx.used_bytes() == 0);
  // A replacement that links afterwards has nothing left to carry again.
  const auto resent = h.tx.stats().cells_resent;
  h.link(3, 20ms);
  n = h.pump(n, 15000);
  h.run_until(h.now + 2s);
  CHECK(in_order(h.delivered, 15000));
  CHECK(h.tx.stats().cells_resent == resent);
  CHECK(h.carried[3] > 0);
}

TEST_CASE("conflux set: a leg dies mid-upload, the client relinks the surviving leg and resends on it") {
  // tx is the client sending an upload and relinking; rx is the exit.
  Harness h;
  std::uint32_t n = h.two_legs_then_leg_2_dies();
  h.relink_from_tx(1);
  CHECK(h.tx.relinking(LegId{1}));
  // Until the LINKED, nothing sequenced goes on leg 1: DATA waits and an
  // END is held.
  CHECK_FALSE(h.tx.can_send_data(h.now));
  auto end = h.tx.send(StreamId{1}, cell::EndMsg{cell::EndReason::Done, std::nullopt}, h.now);
  REQUIRE(end);
  CHECK(end->empty());
  h.run_until(h.now + 200ms);
  CHECK_FALSE(h.tx.relinking(LegId{1}));
  n = h.pump(n, 12000);
  h.run_until(h.now + 2s);
  CHECK(in_order(h.delivered, 12000));
  CHECK(h.ends == 1);
  CHECK(h.tx.stats().cells_resent > 0);
  CHECK(h.tx.stats().cells_resent_on_relinked == h.tx.stats().cells_resent);
  CHECK(h.budget_rx.used_bytes() == 0);
}

TEST_CASE("conflux set: relinking refuses numbers no peer could send and changes nothing then") {
  Harness h;
  h.link(1, 10ms);
  REQUIRE(h.pump(0, 300) == 300);
  h.run_until(h.now + 1s);
  const LinkNumbers ours = h.tx.advertise();
  // The peer claims to have delivered more than we ever sent.
  auto r = h.tx.relink_leg(LegId{1}, ours, {SeqAbs{0}, ours.last_seqno_sent + 1}, RttDuration{0}, h.now);
  REQUIRE_FALSE(r);
  CHECK(r.error() == ConfluxError::SeqIncoherent);
  auto unknown = h.tx.relink_leg(LegId{9}, ours, {}, RttDuration{0}, h.now);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error() == ConfluxError::UnknownLeg);
  REQUIRE(h.pump(300, 600) == 600);
  h.run_until(h.now + 1s);
  CHECK(in_order(h.delivered, 600));
}

TEST_CASE("conflux set: a stalled leg holds the others to max_unconfirmed_cells, within the peer's queue") {
  // Two alike legs share a download; leg 2 stalls for 2 s with cells in
  // flight. Leg 1's SENDMEs keep coming (cells are acknowledged on arrival),
  // so without the bound its cells pile up in the receiver's out-of-order
  // queue, which with congestion control only the receiver's cap stops (it
  // then closes the set: system_load_conflux lost streams so on a loaded
  // machine).
  auto run = [](std::uint64_t bound) {
    ConfluxSetConfig cfg;
    cfg.scheduler = LegSchedKind::LowRtt;
    cfg.max_unconfirmed_cells = bound;
    cfg.receiver.max_set_bytes = std::size_t{1} << 30;  // measured here, not enforced
    cfg.receiver.seq_window = std::uint64_t{1} << 30;
    Harness h(cfg);
    h.link(1, 10ms);
    h.link(2, 12ms);
    std::uint32_t n = h.pump(0, 4000);
    h.send_ready(n);  // every window full: leg 2 has cells in flight
    REQUIRE(h.carried[2] > 0);
    REQUIRE_FALSE(h.wire[2].empty());
    h.stalled.insert(2);
    for (int ms = 0; ms < 2000; ++ms) {
      h.send_ready(n);
      h.run_until(h.now + 1ms);
    }
    const auto deepest = h.rx.stats().max_reorder_cells;
    const auto waits = h.tx.stats().unconfirmed_holds;
    h.stalled.clear();
    n = h.pump(n, n + 4000);
    h.run_until(h.now + 1s);
    CHECK(in_order(h.delivered, n));
    return std::pair{deepest, waits};
  };
  const auto [bounded, waits] = run(1500);
  CHECK(bounded <= 1500);
  CHECK(waits > 0);
  const auto [unbounded, none] = run(std::numeric_limits<std::uint64_t>::max());
  CHECK(unbounded > 5000);
  CHECK(none == 0);
}

TEST_CASE("conflux set: at the bound, the leg holding the oldest unconfirmed cell still takes DATA") {
  // Leg 2 carried a few cells, short of a SENDME; leg 1 runs ahead. At the
  // bound only leg 2 may send: that brings its SENDME, and the set goes on
  // instead of waiting for an acknowledgement that would never come.
  ConfluxSetConfig cfg;
  cfg.scheduler = LegSchedKind::MinRtt;
  cfg.max_unconfirmed_cells = 600;
  Harness h(cfg);
  h.link(2, 10ms);
  std::uint32_t n = 0;
  for (; n < 10; ++n) {
    auto out = h.tx.send(StreamId{1}, data_of(n), h.now);
    REQUIRE(out);
    h.put(*out);
  }
  h.link(1, 1ms);  // faster: MinRtt moves to it
  h.run_until(h.now + 50ms);
  REQUIRE(h.pump(n, 5000) == 5000);
  h.run_until(h.now + 1s);
  CHECK(in_order(h.delivered, 5000));
  CHECK(h.carried[2] > 10);
}
