#pragma once
// The two ActiveCircuits policies (circuit_priority_rr.cpp, circuit_priority_ewma.cpp).
#include <memory>

#include "conflux/proto/circuit_priority.hpp"

namespace conflux::proto {

std::unique_ptr<ActiveCircuits> make_round_robin();
std::unique_ptr<ActiveCircuits> make_ewma(double halflife_s);

}  // namespace conflux::proto
