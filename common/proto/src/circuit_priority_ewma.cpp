// EWMA circuit priority in the scaled form (see circuit_priority.hpp): the
// active circuits in a binary min-heap keyed by (stored count, circuit ID).
// Heap slots point at their records (unordered_map nodes do not move), so
// sifting compares and moves without a hash lookup per step.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "circuit_priority_impl.hpp"

namespace conflux::proto {
namespace {

// Rescale once V = 2^(elapsed/H) reaches 2^32: far from overflow (stored
// counts are at most cells-in-flight times V), and rare (every 32 half-lives).
constexpr std::int64_t kRenormHalflives = 32;
// Idle circuits keep their history (a bulk circuit that drains its queue for
// a moment must not come back at 0), but a peer opening and closing circuits
// without us seeing every close must not grow the table without bound: past
// this many idle records, the quietest half is forgotten (restarts at 0).
constexpr std::size_t kMaxIdleRecords = 4096;
constexpr std::size_t kIdle = std::numeric_limits<std::size_t>::max();

class Ewma final : public ActiveCircuits {
 public:
  explicit Ewma(double halflife_s)
      : h_ns_(std::max<std::int64_t>(1000, static_cast<std::int64_t>(std::llround(halflife_s * 1e9)))) {}

  void activate(CircId circ) override {
    auto [it, inserted] = recs_.try_emplace(circ);
    if (it->second.heap_pos != kIdle) return;
    if (!inserted) --idle_;
    it->second.heap_pos = heap_.size();
    heap_.push_back({&it->second, circ});
    sift_up(heap_.size() - 1);
  }

  [[nodiscard]] bool empty() const noexcept override { return heap_.empty(); }
  [[nodiscard]] CircId head() const override { return heap_.front().circ; }

  void sent(CircId circ, MuxTime now, bool still_active) override {
    advance(now);
    auto it = recs_.find(circ);
    if (it == recs_.end()) return;
    Rec& r = it->second;
    double weight = 1.0;
    if (!weights_.empty()) {
      const auto w = weights_.find(circ);
      if (w != weights_.end()) weight = w->second;
    }
    r.count += weight * std::exp2(exponent(now));
    if (r.heap_pos == kIdle) return;
    if (still_active) {
      sift_down(r.heap_pos);  // its key only grew
      return;
    }
    erase_from_heap(r.heap_pos);
    ++idle_;
    if (idle_ > kMaxIdleRecords) forget_quietest_idle();
  }

  void set_weight(CircId circ, double weight) override {
    if (weight == 1.0) {
      weights_.erase(circ);
    } else {
      weights_[circ] = weight;
    }
  }

  void remove(CircId circ) override {
    weights_.erase(circ);
    auto it = recs_.find(circ);
    if (it == recs_.end()) return;
    if (it->second.heap_pos != kIdle) {
      erase_from_heap(it->second.heap_pos);
    } else {
      --idle_;
    }
    recs_.erase(it);
  }

  [[nodiscard]] double head_priority(MuxTime now) const override {
    return heap_.empty() ? 0.0 : heap_.front().rec->count * std::exp2(-exponent(now));
  }
  [[nodiscard]] double count(CircId circ, MuxTime now) const override {
    auto it = recs_.find(circ);
    return it == recs_.end() ? 0.0 : it->second.count * std::exp2(-exponent(now));
  }

 private:
  struct Rec {
    double count = 0.0;  // cells, each weighted V(t) at the time it was sent
    std::size_t heap_pos = kIdle;
  };
  struct Slot {
    Rec* rec;
    CircId circ;
  };

  [[nodiscard]] double exponent(MuxTime now) const {
    if (!ref_set_) return 0.0;
    return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(now - ref_).count()) /
           static_cast<double>(h_ns_);
  }

  // Moves `ref_` forward by whole half-lives once V would exceed 2^32.
  void advance(MuxTime now) {
    if (!ref_set_) {
      ref_ = now;
      ref_set_ = true;
      return;
    }
    std::int64_t elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(now - ref_).count();
    if (elapsed < kRenormHalflives * h_ns_) return;
    std::int64_t k = elapsed / h_ns_;
    // ldexp by -k is exact (a power of two) until a count reaches the
    // subnormal range, where it is long forgotten; beyond 4096 it is 0.
    int shift = static_cast<int>(std::min<std::int64_t>(k, 4096));
    for (auto& [circ, r] : recs_) r.count = std::ldexp(r.count, -shift);
    ref_ += std::chrono::nanoseconds(k * h_ns_);
    // Exact scaling keeps the order, except where counts underflowed to the
    // same value: rebuild so the heap stays valid in that case too.
    for (std::size_t i = heap_.size() / 2; i-- > 0;) sift_down(i);
  }

  [[nodiscard]] static bool before(const Slot& a, const Slot& b) noexcept {
    const double ca = a.rec->count;
    const double cb = b.rec->count;
    return ca < cb || (ca == cb && a.circ < b.circ);
  }
  void place(std::size_t i, Slot s) noexcept {
    heap_[i] = s;
    s.rec->heap_pos = i;
  }
  void sift_up(std::size_t i) {
    Slot c = heap_[i];
    while (i > 0) {
      std::size_t parent = (i - 1) / 2;
      if (!before(c, heap_[parent])) break;
      place(i, heap_[parent]);
      i = parent;
    }
    place(i, c);
  }
  void sift_down(std::size_t i) {
    Slot c = heap_[i];
    const std::size_t n = heap_.size();
    while (true) {
      std::size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], c)) break;
      place(i, heap_[child]);
      i = child;
    }
    place(i, c);
  }
  void erase_from_heap(std::size_t i) {
    heap_[i].rec->heap_pos = kIdle;
    Slot last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size()) return;
    place(i, last);
    sift_down(i);
    sift_up(last.rec->heap_pos);
  }
  void forget_quietest_idle() {
    std::vector<std::pair<double, CircId>> idle;
    idle.reserve(idle_);
    for (const auto& [circ, r] : recs_) {
      if (r.heap_pos == kIdle) idle.emplace_back(r.count, circ);
    }
    auto mid = idle.begin() + static_cast<std::ptrdiff_t>(idle.size() / 2);
    std::nth_element(idle.begin(), mid, idle.end());
    for (auto it = idle.begin(); it != mid; ++it) recs_.erase(it->second);
    idle_ -= static_cast<std::size_t>(mid - idle.begin());
  }

  std::int64_t h_ns_;
  MuxTime ref_{};  // stored counts are in units of one cell sent at ref_
  bool ref_set_ = false;
  std::unordered_map<CircId, Rec> recs_;  // active and idle circuits
  std::unordered_map<CircId, double> weights_;  // circuits whose cells count other than 1
  std::vector<Slot> heap_;                // active circuits only
  std::size_t idle_ = 0;
};

}  // namespace

std::unique_ptr<ActiveCircuits> make_ewma(double halflife_s) { return std::make_unique<Ewma>(halflife_s); }

}  // namespace conflux::proto
