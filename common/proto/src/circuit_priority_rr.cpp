// Round robin: the active circuits in a list, each served once per turn.
#include <list>
#include <unordered_map>

#include "conflux/proto/circuit_priority.hpp"
#include "circuit_priority_impl.hpp"

namespace conflux::proto {
namespace {

class RoundRobin final : public ActiveCircuits {
 public:
  void activate(CircId circ) override {
    if (pos_.contains(circ)) return;
    pos_.emplace(circ, order_.insert(order_.end(), circ));
  }
  [[nodiscard]] bool empty() const noexcept override { return order_.empty(); }
  [[nodiscard]] CircId head() const override { return order_.front(); }
  void sent(CircId circ, MuxTime, bool still_active) override {
    auto it = pos_.find(circ);
    if (it == pos_.end()) return;
    order_.erase(it->second);
    if (still_active) {
      it->second = order_.insert(order_.end(), circ);
    } else {
      pos_.erase(it);
    }
  }
  void remove(CircId circ) override {
    auto it = pos_.find(circ);
    if (it == pos_.end()) return;
    order_.erase(it->second);
    pos_.erase(it);
  }
  void set_weight(CircId, double) override {}
  [[nodiscard]] double head_priority(MuxTime) const override { return 0.0; }
  [[nodiscard]] double count(CircId, MuxTime) const override { return 0.0; }

 private:
  std::list<CircId> order_;  // service order
  std::unordered_map<CircId, std::list<CircId>::iterator> pos_;
};

}  // namespace

std::unique_ptr<ActiveCircuits> make_round_robin() { return std::make_unique<RoundRobin>(); }

std::unique_ptr<ActiveCircuits> make_active_circuits(CircuitPriority priority) {
  if (priority.ewma()) return make_ewma(priority.halflife_s);
  return make_round_robin();
}

}  // namespace conflux::proto
