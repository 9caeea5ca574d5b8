// The EWMA circuit mux (circuit_priority.hpp) against the paper's formula:
// E1 (a count halves after one half-life), E2 (quietest circuit first, ties
// to the lowest ID), E5 (the scaled form picks exactly what the naive form
// picks over 10^6 random events, across many renormalisations).
#include <algorithm>
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <map>
#include <random>

#include "conflux/proto/circuit_mux.hpp"

using namespace conflux;
using namespace conflux::proto;
using namespace std::chrono_literals;

namespace {
WireCell cell_of(std::uint32_t circ) {
  WireCell c{};
  c[0] = static_cast<std::uint8_t>(circ >> 24);
  c[1] = static_cast<std::uint8_t>(circ >> 16);
  c[2] = static_cast<std::uint8_t>(circ >> 8);
  c[3] = static_cast<std::uint8_t>(circ);
  return c;
}
std::uint32_t circ_of(const std::vector<std::uint8_t>& out) {
  return (std::uint32_t{out[0]} << 24) | (std::uint32_t{out[1]} << 16) | (std::uint32_t{out[2]} << 8) | out[3];
}
std::uint32_t pop_circ(CircuitMux& mux, MuxTime now) {
  std::vector<std::uint8_t> out;
  REQUIRE(mux.pop_into(out, now) == kWireCellLen);
  return circ_of(out);
}
const MuxTime kT0 = MuxTime{} + 1000s;

// The formula as the paper states it: each circuit's count decays by
// 0.5^(dt/H) since its last update, +1 per cell; serve the smallest.
class NaiveEwma {
 public:
  explicit NaiveEwma(double h_s) : h_s_(h_s) {}
  void push(std::uint32_t c) { ++circs_[c].queued; }
  void detach(std::uint32_t c) { circs_.erase(c); }
  [[nodiscard]] bool empty() const {
    for (const auto& [id, st] : circs_) {
      if (st.queued > 0) return false;
    }
    return true;
  }
  std::uint32_t pop(MuxTime now) {
    std::uint32_t best = 0;
    double best_a = 0.0;
    bool found = false;
    for (auto& [id, st] : circs_) {
      if (st.queued == 0) continue;
      double a = decayed(st, now);
      if (!found || a < best_a) {  // map order: ties keep the lower ID
        best = id;
        best_a = a;
        found = true;
      }
    }
    State& st = circs_.at(best);
    st.a = decayed(st, now) + 1.0;
    st.last = now;
    --st.queued;
    return best;
  }

 private:
  struct State {
    double a = 0.0;
    MuxTime last{};
    std::size_t queued = 0;
  };
  [[nodiscard]] double decayed(const State& st, MuxTime now) const {
    double dt = std::chrono::duration<double>(now - st.last).count();
    return st.a * std::pow(0.5, dt / h_s_);
  }
  double h_s_;
  std::map<std::uint32_t, State> circs_;
};
}  // namespace

TEST_CASE("an EWMA count halves after exactly one half-life", "[mux][ewma]") {
  const double h = GENERATE(30.0, 66.0, 1.5);
  CircuitMux mux({}, CircuitPriority{h});
  for (int i = 0; i < 10; ++i) REQUIRE(mux.push(CircId{7}, cell_of(7)) == MuxPush::Queued);
  for (int i = 0; i < 10; ++i) CHECK(pop_circ(mux, kT0) == 7);
  const auto half = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(h));
  CHECK(mux.circuit_count(CircId{7}, kT0) == Approx(10.0).epsilon(1e-12));
  double after_one = mux.circuit_count(CircId{7}, kT0 + half);
  CHECK(std::abs(after_one - 5.0) / 5.0 < 1e-9);
  double after_three = mux.circuit_count(CircId{7}, kT0 + 3 * half);
  CHECK(std::abs(after_three - 1.25) / 1.25 < 1e-9);

  // Across renormalisations (another circuit sending 40 half-lives later
  // rescales every stored count): the idle circuit's count is still exact.
  REQUIRE(mux.push(CircId{8}, cell_of(8)) == MuxPush::Queued);
  CHECK(pop_circ(mux, kT0 + 40 * half) == 8);
  double after_40 = mux.circuit_count(CircId{7}, kT0 + 40 * half);
  double want = 10.0 * std::pow(0.5, 40.0);
  CHECK(std::abs(after_40 - want) / want < 1e-9);
  CHECK(std::abs(mux.circuit_count(CircId{8}, kT0 + 41 * half) - 0.5) < 1e-9);
}

TEST_CASE("EWMA serves the quietest circuit first and breaks ties by circuit ID", "[mux][ewma]") {
  CircuitMux mux({}, CircuitPriority{30.0});
  // A bulk circuit sends 20 cells; then a light one and the bulk one queue.
  for (int i = 0; i < 20; ++i) REQUIRE(mux.push(CircId{1}, cell_of(1)) == MuxPush::Queued);
  for (int i = 0; i < 20; ++i) CHECK(pop_circ(mux, kT0) == 1);
  for (int i = 0; i < 5; ++i) REQUIRE(mux.push(CircId{1}, cell_of(1)) == MuxPush::Queued);
  for (int i = 0; i < 3; ++i) REQUIRE(mux.push(CircId{9}, cell_of(9)) == MuxPush::Queued);
  std::vector<std::uint32_t> order;
  for (int i = 0; i < 8; ++i) order.push_back(pop_circ(mux, kT0 + 1s));
  CHECK(order == std::vector<std::uint32_t>{9, 9, 9, 1, 1, 1, 1, 1});

  // Two fresh circuits tie at 0: the lower ID goes first, then they alternate.
  REQUIRE(mux.push(CircId{40}, cell_of(40)) == MuxPush::Queued);
  REQUIRE(mux.push(CircId{40}, cell_of(40)) == MuxPush::Queued);
  REQUIRE(mux.push(CircId{30}, cell_of(30)) == MuxPush::Queued);
  REQUIRE(mux.push(CircId{30}, cell_of(30)) == MuxPush::Queued);
  order.clear();
  for (int i = 0; i < 4; ++i) order.push_back(pop_circ(mux, kT0 + 2s));
  CHECK(order == std::vector<std::uint32_t>{30, 40, 30, 40});
}

TEST_CASE("an idle circuit keeps its history until it is detached", "[mux][ewma]") {
  CircuitMux mux({}, CircuitPriority{30.0});
  for (int i = 0; i < 4; ++i) REQUIRE(mux.push(CircId{2}, cell_of(2)) == MuxPush::Queued);
  for (int i = 0; i < 4; ++i) CHECK(pop_circ(mux, kT0) == 2);
  CHECK(mux.empty());
  REQUIRE(mux.push(CircId{2}, cell_of(2)) == MuxPush::Queued);
  REQUIRE(mux.push(CircId{3}, cell_of(3)) == MuxPush::Queued);
  CHECK(mux.next_priority(kT0).value() == 0.0);  // circuit 3 is fresh
  CHECK(pop_circ(mux, kT0) == 3);
  CHECK(pop_circ(mux, kT0) == 2);
  mux.detach(CircId{2});
  CHECK(mux.circuit_count(CircId{2}, kT0) == 0.0);
  CHECK(mux.circuit_count(CircId{3}, kT0) == Approx(1.0));
  CHECK_FALSE(mux.next_priority(kT0).has_value());
}

TEST_CASE("the scaled EWMA picks the same circuits as the naive formula over 10^6 random events",
          "[mux][ewma]") {
  const double h_s = 2.0;
  CircuitMux mux({.max_cells_per_circuit = 64, .max_control_bytes = 1024, .gauge = nullptr}, CircuitPriority{h_s});
  NaiveEwma naive(h_s);
  std::mt19937_64 rng(20100406);
  std::uniform_int_distribution<int> what(0, 999);
  std::uniform_int_distribution<std::uint32_t> circ(1, 48);
  std::uniform_int_distribution<std::int64_t> small_step(0, 20'000'000);       // up to 20 ms
  std::uniform_int_distribution<std::int64_t> long_step(0, 10'000'000'000LL);  // up to 5 half-lives
  MuxTime now = kT0;
  std::size_t pops = 0;
  std::size_t mismatches = 0;
  for (int event = 0; event < 1'000'000; ++event) {
    int w = what(rng);
    if (w < 300) {
      // Several cells often leave within one scheduling run: same `now`.
    } else if (w < 998) {
      now += std::chrono::nanoseconds(small_step(rng));
    } else {
      now += std::chrono::nanoseconds(long_step(rng));
    }
    int op = what(rng);
    if (op < 460) {
      std::uint32_t c = circ(rng);
      if (mux.push(CircId{c}, cell_of(c)) == MuxPush::Queued) naive.push(c);
    } else if (op < 990) {
      if (mux.empty()) {
        CHECK(naive.empty());
        continue;
      }
      std::uint32_t got = pop_circ(mux, now);
      std::uint32_t want = naive.pop(now);
      ++pops;
      if (got != want) ++mismatches;
    } else {
      std::uint32_t c = circ(rng);
      mux.detach(CircId{c});
      naive.detach(c);
    }
  }
  CHECK(pops > 400'000);
  CHECK(mismatches == 0);
}

TEST_CASE("EWMA and round robin choose differently when one circuit is bulk", "[mux][ewma]") {
  // The same arrivals: under round robin the light circuit waits its turn
  // behind the bulk one, under EWMA it goes first.
  auto light_position = [](CircuitPriority p) {
    CircuitMux mux({}, p);
    for (int i = 0; i < 50; ++i) REQUIRE(mux.push(CircId{1}, cell_of(1)) == MuxPush::Queued);
    for (int i = 0; i < 40; ++i) (void)pop_circ(mux, kT0);
    REQUIRE(mux.push(CircId{5}, cell_of(5)) == MuxPush::Queued);
    REQUIRE(mux.push(CircId{5}, cell_of(5)) == MuxPush::Queued);
    std::vector<std::uint32_t> order;
    for (int i = 0; i < 12; ++i) order.push_back(pop_circ(mux, kT0 + 10ms));
    return order;
  };
  CHECK(light_position(CircuitPriority{30.0}) ==
        std::vector<std::uint32_t>{5, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  CHECK(light_position(CircuitPriority{0.0}) ==
        std::vector<std::uint32_t>{1, 5, 1, 5, 1, 1, 1, 1, 1, 1, 1, 1});
}

TEST_CASE("more idle circuits than the mux keeps forgets the quietest, and stays bounded", "[mux][ewma]") {
  CircuitMux mux({}, CircuitPriority{30.0});
  MuxTime now = kT0;
  for (std::uint32_t c = 1; c <= 10'000; ++c) {
    REQUIRE(mux.push(CircId{c}, cell_of(c)) == MuxPush::Queued);
    CHECK(pop_circ(mux, now) == c);
    now += 1ms;
  }
  // The most recent circuits (largest counts now) are remembered; the
  // oldest were forgotten at some point.
  CHECK(mux.circuit_count(CircId{10'000}, now) > 0.99);
  CHECK(mux.circuit_count(CircId{1}, now) == 0.0);
  CHECK(mux.empty());
}

TEST_CASE("the policy changes at run time with every queued cell kept (CircuitPriorityHalflife on SIGHUP)",
          "[mux][ewma]") {
  CircuitMux mux({}, CircuitPriority{30.0});
  for (int i = 0; i < 50; ++i) REQUIRE(mux.push(CircId{1}, cell_of(1)) == MuxPush::Queued);
  for (int i = 0; i < 40; ++i) (void)pop_circ(mux, kT0);
  REQUIRE(mux.push(CircId{5}, cell_of(5)) == MuxPush::Queued);
  REQUIRE(mux.push(CircId{5}, cell_of(5)) == MuxPush::Queued);
  // To round robin: the bulk circuit's history no longer counts against it.
  mux.set_priority(CircuitPriority{0.0});
  CHECK(mux.queued_cells() == 12);
  std::vector<std::uint32_t> order;
  for (int i = 0; i < 4; ++i) order.push_back(pop_circ(mux, kT0 + 10ms));
  // Each in turn (which of the two starts is the new policy's choice).
  CHECK(std::count(order.begin(), order.end(), 5u) == 2);
  CHECK(order[0] != order[1]);
  CHECK(order[0] == order[2]);
  CHECK(order[1] == order[3]);
  // Back to EWMA with history starting afresh: circuit 1 has eight cells
  // left, circuit 9 arrives; they alternate from equal counts (ties by ID).
  mux.set_priority(CircuitPriority{30.0});
  REQUIRE(mux.push(CircId{9}, cell_of(9)) == MuxPush::Queued);
  CHECK(pop_circ(mux, kT0 + 20ms) == 1);
  CHECK(pop_circ(mux, kT0 + 20ms) == 9);
  CHECK(mux.queued_cells() == 7);
  std::vector<std::uint8_t> out;
  while (mux.pop_into(out, kT0 + 30ms) > 0) {
  }
  CHECK(mux.empty());
}

TEST_CASE("a worse-class circuit with priority factor F is served F times less often than a normal one",
          "[mux][ewma]") {
  // seeds-digest E7: two always-backlogged circuits, one marked with F.
  for (const double f : {3.0, 10.0}) {
    INFO("F = " << f);
    CircuitMux mux({}, CircuitPriority{30.0});
    mux.set_circuit_weight(CircId{2}, f);
    std::map<std::uint32_t, int> served;
    MuxTime now = kT0;
    for (int i = 0; i < 22000; ++i) {
      // Keep both backlogged.
      for (std::uint32_t c : {1u, 2u})
        while (mux.queued_cells(CircId{c}) < 4) REQUIRE(mux.push(CircId{c}, cell_of(c)) == MuxPush::Queued);
      ++served[pop_circ(mux, now)];
      now += 1ms;
    }
    const double ratio = static_cast<double>(served[1]) / served[2];
    CHECK(ratio > f * 0.95);
    CHECK(ratio < f * 1.05);
  }
  // Round robin ignores the mark; factor 1 removes it.
  CircuitMux rr({}, CircuitPriority{0.0});
  rr.set_circuit_weight(CircId{2}, 10.0);
  for (std::uint32_t c : {1u, 2u, 1u, 2u}) REQUIRE(rr.push(CircId{c}, cell_of(c)) == MuxPush::Queued);
  std::vector<std::uint32_t> order;
  for (int i = 0; i < 4; ++i) order.push_back(pop_circ(rr, kT0));
  CHECK(std::count(order.begin(), order.end(), 2u) == 2);
  CHECK(order[0] != order[1]);
}
