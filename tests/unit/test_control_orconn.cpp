// ORCONN events and orconn-status lines (control::orconn_event), and the
// relay's reachability STATUS_SERVER events (control::ReachabilityStatus),
// in the words tor's control_events.c, selftest.c and relay_periodic.c use.
#include <catch2/catch.hpp>

#include "conflux/control/orconn_event.hpp"
#include "conflux/control/reachability_status.hpp"

using namespace conflux::control;

namespace {

std::array<std::uint8_t, 20> fp_of(std::uint8_t b) {
  std::array<std::uint8_t, 20> fp{};
  fp.fill(b);
  fp[0] = 0xAB;
  return fp;
}

const std::string kHex = "AB" + std::string(38, '1');

}  // namespace

TEST_CASE("ORCONN target: $FINGERPRINT~nickname, $FINGERPRINT, else ADDRESS:PORT", "[control][orconn]") {
  CHECK(orconn_target_name({fp_of(0x11), "relay1", "127.0.0.1:5000"}) == "$" + kHex + "~relay1");
  CHECK(orconn_target_name({fp_of(0x11), std::nullopt, "127.0.0.1:5000"}) == "$" + kHex);
  CHECK(orconn_target_name({fp_of(0x11), "", "127.0.0.1:5000"}) == "$" + kHex);
  CHECK(orconn_target_name({std::nullopt, std::nullopt, "127.0.0.1:5000"}) == "127.0.0.1:5000");
  CHECK(orconn_target_name({std::nullopt, "ignored", "[2001:db8::1]:443"}) == "[2001:db8::1]:443");
}

TEST_CASE("ORCONN events as tor writes them", "[control][orconn]") {
  CHECK(orconn_event("127.0.0.1:40000", OrConnStatus::New, "", 0, 7) == "ORCONN 127.0.0.1:40000 NEW ID=7");
  CHECK(orconn_event("$" + kHex + "~relay1", OrConnStatus::Launched, "", 0, 8) ==
        "ORCONN $" + kHex + "~relay1 LAUNCHED ID=8");
  CHECK(orconn_event("$" + kHex, OrConnStatus::Connected, "", 3, 8) == "ORCONN $" + kHex + " CONNECTED ID=8");
  // NCIRCS only when circuits were on it, and only when it ends.
  CHECK(orconn_event("$" + kHex, OrConnStatus::Failed, "CONNECTREFUSED", 2, 9) ==
        "ORCONN $" + kHex + " FAILED REASON=CONNECTREFUSED NCIRCS=2 ID=9");
  CHECK(orconn_event("127.0.0.1:40000", OrConnStatus::Closed, "DONE", 0, 7) ==
        "ORCONN 127.0.0.1:40000 CLOSED REASON=DONE ID=7");
  CHECK(orconn_event("$" + kHex + "~r", OrConnStatus::Closed, "CONNECTRESET", 12, 1) ==
        "ORCONN $" + kHex + "~r CLOSED REASON=CONNECTRESET NCIRCS=12 ID=1");
}

TEST_CASE("orconn-status lines: TARGET STATUS", "[control][orconn]") {
  CHECK(orconn_status_line("$" + kHex + "~relay1", OrConnStatus::Connected) == "$" + kHex + "~relay1 CONNECTED");
  CHECK(orconn_status_line("$" + kHex, OrConnStatus::Launched) == "$" + kHex + " LAUNCHED");
  CHECK(orconn_status_line("127.0.0.1:40000", OrConnStatus::New) == "127.0.0.1:40000 NEW");
}

TEST_CASE("reachability: CHECKING once, SUCCEEDED once, then OR=1", "[control][reachability]") {
  ReachabilityStatus r("192.0.2.1:9001", "");
  CHECK(r.summary() == "OR=0 DIR=1");
  using E = ReachabilityStatus::Event;
  CHECK(r.start_checking() == std::vector<E>{{"NOTICE", "CHECKING_REACHABILITY ORADDRESS=192.0.2.1:9001"}});
  CHECK(r.start_checking().empty());
  CHECK(r.overdue() == std::vector<E>{{"WARN", "REACHABILITY_FAILED ORADDRESS=192.0.2.1:9001"}});
  CHECK(r.found(false) == std::vector<E>{{"NOTICE", "REACHABILITY_SUCCEEDED ORADDRESS=192.0.2.1:9001"}});
  CHECK(r.found(false).empty());
  CHECK(r.found(true).empty());  // no IPv6 ORPort advertised: nothing to find
  CHECK(r.overdue().empty());
  CHECK(r.all_reachable());
  CHECK(r.summary() == "OR=1 DIR=1");
}

TEST_CASE("reachability: found before testing began is not tested again", "[control][reachability]") {
  ReachabilityStatus r("192.0.2.1:9001", "");
  CHECK(r.found(false).size() == 1);
  CHECK(r.start_checking().empty());
}

TEST_CASE("reachability: each advertised family on its own", "[control][reachability]") {
  ReachabilityStatus r("192.0.2.1:9001", "[2001:db8::1]:9001");
  using E = ReachabilityStatus::Event;
  CHECK(r.start_checking() == std::vector<E>{{"NOTICE", "CHECKING_REACHABILITY ORADDRESS=192.0.2.1:9001"},
                                             {"NOTICE", "CHECKING_REACHABILITY ORADDRESS=[2001:db8::1]:9001"}});
  CHECK(r.found(true) == std::vector<E>{{"NOTICE", "REACHABILITY_SUCCEEDED ORADDRESS=[2001:db8::1]:9001"}});
  CHECK(r.summary() == "OR=0 DIR=1");  // tor's router_all_orports_seem_reachable: both
  CHECK(r.overdue() == std::vector<E>{{"WARN", "REACHABILITY_FAILED ORADDRESS=192.0.2.1:9001"}});
  CHECK(r.found(false).size() == 1);
  CHECK(r.summary() == "OR=1 DIR=1");
}
