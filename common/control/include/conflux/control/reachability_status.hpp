#pragma once
// A relay's ORPort self-test as tor tells it (selftest.c, relay_periodic.c):
// the STATUS_SERVER events (control-spec 4.1.10)
//   NOTICE CHECKING_REACHABILITY ORADDRESS=IP:PORT    once per family, when testing begins
//   NOTICE REACHABILITY_SUCCEEDED ORADDRESS=IP:PORT   once per family, when found reachable
//   WARN REACHABILITY_FAILED ORADDRESS=IP:PORT        per family still unconfirmed, each time it is overdue
// and GETINFO status/reachability-succeeded[/or|/dir]. What counts as found
// is the relay's business; this only remembers and words it. A relay
// without an advertised address of a family is not tested on it (tor's
// have_orport_for_family); tor's DirPort is never tested any more, so
// DIR is always 1.
#include <string>
#include <string_view>
#include <vector>

namespace conflux::control {

class ReachabilityStatus {
 public:
  struct Event {
    std::string_view severity;  // "NOTICE", "WARN"
    std::string text;           // after "650 STATUS_SERVER SEVERITY "
    friend bool operator==(const Event&, const Event&) = default;
  };

  // The advertised ORPort addresses as ORADDRESS writes them ("192.0.2.1:9001",
  // "[2001:db8::1]:9001"); empty: none of that family.
  ReachabilityStatus(std::string v4, std::string v6);

  // Testing begins: CHECKING_REACHABILITY for each family not yet found, the
  // first time only (tor's inform_testing_reachability).
  [[nodiscard]] std::vector<Event> start_checking();
  // Found reachable on IPv4 (`ipv6` false) or IPv6: REACHABILITY_SUCCEEDED
  // the first time, nothing after (tor's router_orport_found_reachable).
  [[nodiscard]] std::vector<Event> found(bool ipv6);
  // Overdue (tor: 20 minutes after start, then every 20): REACHABILITY_FAILED
  // for each family advertised and not yet found.
  [[nodiscard]] std::vector<Event> overdue() const;

  [[nodiscard]] bool reachable(bool ipv6) const;
  // tor's router_all_orports_seem_reachable.
  [[nodiscard]] bool all_reachable() const { return reachable(false) && reachable(true); }
  // GETINFO status/reachability-succeeded: "OR=1 DIR=1".
  [[nodiscard]] std::string summary() const;
  [[nodiscard]] const std::string& address(bool ipv6) const { return ipv6 ? v6_ : v4_; }

 private:
  std::string v4_, v6_;
  bool found_v4_ = false, found_v6_ = false;
  bool informed_ = false;
};

}  // namespace conflux::control
