// ChannelManager's reports for ORCONN and orconn-status (control-spec 4.1.3)
// and the CREATEs the relay's reachability self-test counts, with relays
// and a client on loopback: NEW then CONNECTED for a peer's channel,
// LAUNCHED then CONNECTED (same ID) for one the relay makes, FAILED with
// tor's reasons for connects that never open, CLOSED with the circuits it
// carried.
#include "test_net_relay_support.hpp"

using namespace conflux;
using namespace conflux::test;
using S = net::ChannelReport::Status;

namespace {

struct Observed {
  std::vector<net::ChannelReport> reports;
  std::vector<net::ChannelReport> creates;
  std::vector<std::string> reasons;  // reports[i].reason, kept (the view is the manager's)

  void attach(net::ChannelManager& m) {
    m.set_observer({[this](const net::ChannelReport& r) {
                      reports.push_back(r);
                      reasons.emplace_back(r.reason);
                      reports.back().reason = {};
                    },
                    [this](const net::ChannelReport& r) { creates.push_back(r); }});
  }
  [[nodiscard]] std::vector<S> statuses(std::uint64_t id) const {
    std::vector<S> out;
    for (const auto& r : reports)
      if (r.id == id) out.push_back(r.status);
    return out;
  }
  [[nodiscard]] const net::ChannelReport* find(S status, bool outbound) const {
    for (const auto& r : reports)
      if (r.status == status && r.outbound == outbound) return &r;
    return nullptr;
  }
  [[nodiscard]] std::string reason_of(S status) const {
    for (std::size_t i = 0; i < reports.size(); ++i)
      if (reports[i].status == status) return reasons[i];
    return "(none)";
  }
};

struct Rig {
  boost::asio::io_context io;
  net::SystemClock clock;
  TestRelay a{io, clock, {}};
  TestRelay b{io, clock, {}};
  Observed at_a, at_b;
  TestClient client{io, clock};

  Rig() {
    at_a.attach(*a.manager);
    at_b.attach(*b.manager);
    client.connect(a, a.keys.identity());
    // The client is open once it sent its NETINFO; the relay once it read it.
    REQUIRE(run_until(io, [&] { return client.opened && at_a.find(S::Connected, false) != nullptr; }));
  }
};

net::HopTarget with_rsa(const TestRelay& r) {
  auto t = r.target();
  t.link_specs.push_back(cell::LinkSpecLegacyId{r.keys.rsa_fingerprint()});
  return t;
}

}  // namespace

TEST_CASE("ORCONN reports: a client's channel is NEW, then CONNECTED, named by its address", "[net][relay][orconn]") {
  Rig rig;
  REQUIRE(rig.at_a.reports.size() == 2);
  const auto& fresh = rig.at_a.reports[0];
  const auto& open = rig.at_a.reports[1];
  CHECK(fresh.status == S::New);
  CHECK(open.status == S::Connected);
  CHECK(fresh.id == open.id);
  CHECK_FALSE(fresh.outbound);
  CHECK_FALSE(open.rsa);  // a client proves no identity
  REQUIRE(open.remote);
  CHECK(open.remote->address().to_string() == "127.0.0.1");
  // What the client's NETINFO said it reached: the relay's loopback address.
  REQUIRE(open.our_address_seen_by_peer);
  CHECK(*open.our_address_seen_by_peer == cell::NetinfoAddress{cell::NetinfoIpv4{{127, 0, 0, 1}}});
  const auto now = rig.a.manager->channel_reports();
  REQUIRE(now.size() == 1);
  CHECK(now[0].status == S::Connected);
  CHECK(now[0].id == open.id);
}

TEST_CASE("ORCONN reports: an extend's channel is LAUNCHED, then CONNECTED with the identity it proved",
          "[net][relay][orconn]") {
  Rig rig;
  auto circ = build_circuit(rig.io, rig.client, {&rig.a, &rig.b});
  const auto* launched = rig.at_a.find(S::Launched, true);
  REQUIRE(launched != nullptr);
  CHECK_FALSE(launched->rsa);  // the EXTEND2 named only the Ed25519 key: the address then
  REQUIRE(launched->remote);
  CHECK(*launched->remote == rig.b.endpoint);
  CHECK(rig.at_a.statuses(launched->id) == std::vector<S>{S::Launched, S::Connected});
  const auto* connected = rig.at_a.find(S::Connected, true);
  REQUIRE(connected != nullptr);
  CHECK(connected->rsa == rig.b.keys.rsa_fingerprint());
  // At B the same channel came in from a relay that authenticated: named by A's identity once open.
  const auto* in_b = rig.at_b.find(S::Connected, false);
  REQUIRE(in_b != nullptr);
  CHECK(in_b->rsa == rig.a.keys.rsa_fingerprint());
  CHECK(rig.at_b.statuses(in_b->id) == std::vector<S>{S::New, S::Connected});
  CHECK(rig.a.manager->channel_reports().size() == 2);
}

TEST_CASE("reachability: each CREATE on a channel a peer made is told, none on ours", "[net][relay][orconn]") {
  Rig rig;
  auto circ = build_circuit(rig.io, rig.client, {&rig.a, &rig.b});
  REQUIRE(rig.at_a.creates.size() == 1);  // the client's CREATE2; A's own CREATE2 to B went out
  CHECK_FALSE(rig.at_a.creates[0].outbound);
  CHECK(rig.at_a.creates[0].our_address_seen_by_peer);
  REQUIRE(rig.at_b.creates.size() == 1);  // A's, relayed for the EXTEND2
  CHECK(rig.at_b.creates[0].rsa == rig.a.keys.rsa_fingerprint());
  auto second = build_circuit(rig.io, rig.client, {&rig.a});
  CHECK(rig.at_a.creates.size() == 2);
}

TEST_CASE("ORCONN reports: a connect refused is FAILED CONNECTREFUSED with the circuit that waited",
          "[net][relay][orconn]") {
  Rig rig;
  net::tcp::endpoint closed_port;
  {
    boost::asio::ip::tcp::acceptor probe(rig.io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    closed_port = probe.local_endpoint();
  }
  auto circ = build_circuit(rig.io, rig.client, {&rig.a});
  auto target = with_rsa(rig.b);
  target.link_specs[0] = cell::LinkSpecIpv4{closed_port.address().to_v4().to_bytes(), closed_port.port()};
  REQUIRE(circ->extend(target));
  REQUIRE(run_until(rig.io, [&] { return rig.at_a.find(S::Failed, true) != nullptr; }));
  const auto* failed = rig.at_a.find(S::Failed, true);
  CHECK(rig.at_a.statuses(failed->id) == std::vector<S>{S::Launched, S::Failed});
  CHECK(rig.at_a.reason_of(S::Failed) == "CONNECTREFUSED");
  CHECK(failed->circuits == 1);
  CHECK(failed->rsa == rig.b.keys.rsa_fingerprint());  // named by the identity asked for
  CHECK(rig.a.manager->channel_reports().size() == 1);  // the client's alone
}

TEST_CASE("ORCONN reports: the wrong relay at the address is FAILED IDENTITY", "[net][relay][orconn]") {
  Rig rig;
  TestRelay other{rig.io, rig.clock, {}};
  auto circ = build_circuit(rig.io, rig.client, {&rig.a});
  auto target = with_rsa(other);
  target.link_specs[0] = cell::LinkSpecIpv4{rig.b.endpoint.address().to_v4().to_bytes(), rig.b.endpoint.port()};
  REQUIRE(circ->extend(target));
  REQUIRE(run_until(rig.io, [&] { return rig.at_a.find(S::Failed, true) != nullptr; }));
  CHECK(rig.at_a.reason_of(S::Failed) == "IDENTITY");
  CHECK(rig.at_a.find(S::Failed, true)->circuits == 1);
}

TEST_CASE("ORCONN reports: closing open channels is CLOSED DONE with the circuits they carried",
          "[net][relay][orconn]") {
  Rig rig;
  auto circ = build_circuit(rig.io, rig.client, {&rig.a, &rig.b});
  rig.a.manager->close_all_channels("test");
  REQUIRE(run_until(rig.io, [&] {
    std::size_t closed = 0;
    for (const auto& r : rig.at_a.reports) closed += r.status == S::Closed ? 1 : 0;
    return closed == 2;
  }));
  std::vector<std::size_t> circuits;
  for (std::size_t i = 0; i < rig.at_a.reports.size(); ++i) {
    if (rig.at_a.reports[i].status != S::Closed) continue;
    CHECK(rig.at_a.reasons[i] == "DONE");
    circuits.push_back(rig.at_a.reports[i].circuits);
  }
  // The first to close still carried the circuit; it died with that channel, before the second closed.
  CHECK(circuits == std::vector<std::size_t>{1, 0});
  CHECK(rig.a.manager->channel_reports().empty());
}
