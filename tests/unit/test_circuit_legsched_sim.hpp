#pragma once
// A deterministic discrete-time simulation of one Conflux set for the leg
// scheduler tests: each leg is a FIFO bottleneck (cells/s) plus a fixed base
// RTT split evenly between the directions; the receiver reorders by
// sequence number and returns a circuit SENDME per sendme_inc cells on each
// leg. Time is injected; nothing sleeps.
//
// With cc_cwnd set, the legs stand for congestion-controlled circuits at
// their equilibrium: each keeps the fixed cwnd given, and after every
// SENDME the leg is handed that cwnd and an N-EWMA
// (N = 4) of the stamped cell's RTT, as the runtime hands it Vegas's.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <queue>
#include <tuple>
#include <vector>

#include "conflux/proto/leg_sched.hpp"

namespace legsim {

using namespace conflux::proto;
using us = std::chrono::microseconds;

struct SimLeg {
  us base_rtt{0};
  std::uint64_t rate_cells_per_s = 0;  // 0: no bottleneck
};

struct SimConfig {
  std::vector<SimLeg> legs;
  LegWindowParams window{};
  std::uint64_t source_cells_per_s = 0;  // 0: an endless backlog
  std::uint64_t total_cells = 10000;
  std::vector<std::uint32_t> cc_cwnd;  // one per leg: congestion control; empty: fixed windows
  us step{100};
  us limit{std::chrono::seconds(120)};
};

struct SimResult {
  std::vector<std::uint64_t> cells_per_leg;
  std::uint64_t delivered = 0;
  us finish{0};              // when the last cell was delivered in order
  std::uint64_t max_ooo = 0;  // cells held in the reorder queue at once
  us max_hol_wait{0};         // longest a cell waited there
  std::uint64_t switches = 0;
  std::uint64_t voluntary_short_runs = 0;  // left a leg that could send before min_run
  std::uint64_t none_with_fastest_open = 0;  // "no leg" while the lowest base-RTT leg could send
  std::uint64_t cells_on_slow_with_fastest_open = 0;
  LegSchedStats stats;
};

inline SimResult run(LegScheduler& sched, const SimConfig& cfg) {
  const RttClock::time_point epoch{};
  auto tp = [&](std::int64_t t) { return epoch + us(t); };
  const std::size_t n = cfg.legs.size();
  std::vector<LegState> legs(n, LegState(cfg.window));
  std::size_t fastest = 0;
  const bool cc = !cfg.cc_cwnd.empty();
  std::vector<std::int64_t> cc_ewma(n, 0);
  std::vector<std::int64_t> sent_at(cfg.total_cells + 2, 0);
  for (std::size_t i = 0; i < n; ++i) {
    legs[i].on_link_rtt(cfg.legs[i].base_rtt);  // LINK -> LINKED on an idle leg
    if (cc) legs[i].on_cc(LegCcView{cfg.cc_cwnd[i], us(0)});
    if (cfg.legs[i].base_rtt < cfg.legs[fastest].base_rtt) fastest = i;
  }
  using Ev = std::tuple<std::int64_t, std::uint64_t, std::size_t>;  // time, seq, leg
  std::priority_queue<Ev, std::vector<Ev>, std::greater<>> arrivals;
  std::priority_queue<Ev, std::vector<Ev>, std::greater<>> sendmes;
  std::vector<std::int64_t> next_free_ns(n, 0);
  std::vector<std::uint64_t> received(n, 0);
  std::map<std::uint64_t, std::int64_t> ooo;  // seq -> arrival time
  std::uint64_t next_deliver = 1;
  std::uint64_t next_seq = 1;
  double credit = 0.0;
  SimResult r;
  r.cells_per_leg.assign(n, 0);
  const std::int64_t step = cfg.step.count();

  for (std::int64_t t = 0; t <= cfg.limit.count() && r.delivered < cfg.total_cells; t += step) {
    while (!sendmes.empty() && std::get<0>(sendmes.top()) <= t) {
      auto [when, acked, leg] = sendmes.top();
      sendmes.pop();
      (void)legs[leg].on_sendme(tp(when));
      if (cc) {
        const std::int64_t sample = when - sent_at[acked];
        cc_ewma[leg] = cc_ewma[leg] == 0 ? sample : (2 * sample + 3 * cc_ewma[leg]) / 5;
        legs[leg].on_cc(LegCcView{cfg.cc_cwnd[leg], us(cc_ewma[leg])});
      }
      sched.on_sendme(leg, tp(when));
    }
    while (!arrivals.empty() && std::get<0>(arrivals.top()) <= t) {
      auto [when, seq, leg] = arrivals.top();
      arrivals.pop();
      if (++received[leg] % cfg.window.sendme_inc == 0) {
        sendmes.emplace(when + cfg.legs[leg].base_rtt.count() / 2, seq, leg);
      }
      ooo.emplace(seq, when);
      r.max_ooo = std::max<std::uint64_t>(r.max_ooo, ooo.size() - (ooo.begin()->first == next_deliver ? 1 : 0));
      while (!ooo.empty() && ooo.begin()->first == next_deliver) {
        r.max_hol_wait = std::max(r.max_hol_wait, us(when - ooo.begin()->second));
        ooo.erase(ooo.begin());
        ++next_deliver;
        ++r.delivered;
        r.finish = us(when);
      }
    }
    const std::uint64_t remaining = cfg.total_cells - (next_seq - 1);
    if (cfg.source_cells_per_s == 0) {
      credit = static_cast<double>(remaining);
    } else {
      credit = std::min(credit + static_cast<double>(cfg.source_cells_per_s) * static_cast<double>(step) / 1e6,
                        static_cast<double>(remaining));
    }
    while (credit >= 1.0) {
      const auto prev = sched.current_leg();
      const auto prev_run = sched.current_run();
      const bool prev_could_send = prev && legs[*prev].can_send();
      auto c = sched.choose_leg(tp(t), legs);
      if (!c) {
        if (legs[fastest].can_send()) ++r.none_with_fastest_open;
        break;
      }
      if (c->switch_first) {
        ++r.switches;
        if (prev_could_send && prev_run < sched.params().min_run_cells) ++r.voluntary_short_runs;
      }
      if (c->leg != fastest && legs[fastest].can_send()) ++r.cells_on_slow_with_fastest_open;
      const std::size_t l = c->leg;
      if (!legs[l].on_data_sent(tp(t))) break;
      (void)sched.on_sent(l, tp(t));
      ++r.cells_per_leg[l];
      std::int64_t depart_ns = std::max(t * 1000, next_free_ns[l]);
      if (cfg.legs[l].rate_cells_per_s > 0) {
        depart_ns += static_cast<std::int64_t>(1'000'000'000ULL / cfg.legs[l].rate_cells_per_s);
      }
      next_free_ns[l] = depart_ns;
      sent_at[next_seq] = t;
      arrivals.emplace(depart_ns / 1000 + cfg.legs[l].base_rtt.count() / 2, next_seq++, l);
      credit -= 1.0;
    }
  }
  r.stats = sched.stats();
  return r;
}

}  // namespace legsim
