#include "conflux/control/reachability_status.hpp"

#include <utility>

namespace conflux::control {

ReachabilityStatus::ReachabilityStatus(std::string v4, std::string v6) : v4_(std::move(v4)), v6_(std::move(v6)) {}

bool ReachabilityStatus::reachable(bool ipv6) const {
  if (ipv6) return v6_.empty() || found_v6_;
  return v4_.empty() || found_v4_;
}

std::vector<ReachabilityStatus::Event> ReachabilityStatus::start_checking() {
  std::vector<Event> out;
  if (informed_) return out;
  informed_ = true;
  for (const bool ipv6 : {false, true})
    if (!reachable(ipv6)) out.push_back({"NOTICE", "CHECKING_REACHABILITY ORADDRESS=" + address(ipv6)});
  return out;
}

std::vector<ReachabilityStatus::Event> ReachabilityStatus::found(bool ipv6) {
  if (reachable(ipv6)) return {};  // already found, or nothing advertised of that family
  (ipv6 ? found_v6_ : found_v4_) = true;
  return {{"NOTICE", "REACHABILITY_SUCCEEDED ORADDRESS=" + address(ipv6)}};
}

std::vector<ReachabilityStatus::Event> ReachabilityStatus::overdue() const {
  std::vector<Event> out;
  for (const bool ipv6 : {false, true})
    if (!reachable(ipv6)) out.push_back({"WARN", "REACHABILITY_FAILED ORADDRESS=" + address(ipv6)});
  return out;
}

std::string ReachabilityStatus::summary() const {
  return std::string("OR=") + (all_reachable() ? "1" : "0") + " DIR=1";
}

}  // namespace conflux::control
