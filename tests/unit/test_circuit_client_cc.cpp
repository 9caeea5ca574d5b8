// Congestion control at the client's circuit machine, in memory, against a
// one-hop relay made here: the ntor-v3 request and tor's acceptance rules
// for the answer, SENDMEs every sendme_inc cells with the v1 tag of that
// cell, Vegas's cwnd as the package window, and the fixed windows when
// either end does not offer it. (Against a stock tor exit:
// test_net_processes_stocktor.cpp.)
#include <catch2/catch.hpp>

#include "client_circuit_test_support.hpp"
#include "conflux/crypto/ntor_v3_extensions.hpp"

using namespace conflux;
using namespace conflux::proto;
using namespace conflux::test;

namespace {

constexpr CircId kCirc{0x80000001u};

// A clock the test moves.
struct FakeTime {
  CcClock::time_point now{std::chrono::seconds(1000)};
  ClientCircuitConfig config() {
    ClientCircuitConfig c;
    c.now = [this] { return now; };
    return c;
  }
};

std::vector<std::uint8_t> sm_with_sendme_inc(std::uint8_t inc) {
  std::vector<crypto::NtorV3Extension> reply{crypto::make_cc_response(inc)};
  return std::move(crypto::encode_ntor_v3_extensions(reply)).value();
}

const std::vector<std::uint8_t> kNoExtensions{0};

// The SENDMEs among the circuit's cells, as the relay reads them.
std::vector<cell::SendmeMsg> sendmes_seen_by(LoneRelay& relay, const std::vector<ClientCircuitAction>& actions) {
  std::vector<cell::SendmeMsg> out;
  for (const auto& c : cells_of(actions)) {
    cell::RelayPayload p{};
    std::copy(c.body.view().begin(), c.body.view().end(), p.begin());
    REQUIRE(relay.hop->decrypt_forward(p) == crypto::ForwardVerdict::Recognized);
    auto view = cell::decode_relay_payload(p);
    REQUIRE(view.has_value());
    auto msg = cell::decode_relay_msg(*view);
    REQUIRE(msg.has_value());
    if (auto* s = std::get_if<cell::SendmeMsg>(&*msg)) out.push_back(*s);
  }
  return out;
}

cell::SendmeMsg sendme_with(const crypto::SendmeDigest& digest) {
  cell::SendmeTag tag;
  std::copy(digest.begin(), digest.end(), tag.bytes.begin());
  return cell::SendmeMsg{tag};
}

}  // namespace

TEST_CASE("client cc: the exit's sendme_inc is taken only when asked and within tor's range", "[client_circuit][cc]") {
  FakeTime t;
  SECTION("asked, answered 31: congestion control") {
    LoneRelay relay;
    auto c = built_by(relay, kCirc, t.config(), HopOptions{true}, sm_with_sendme_inc(31));
    REQUIRE(c.congestion_control().has_value());
    CHECK(c.congestion_control()->sendme_inc == 31);
    REQUIRE(c.vegas() != nullptr);
    CHECK(c.vegas()->cwnd() == CcParams{}.cwnd_init);
  }
  SECTION("asked, answered with no extension: fixed windows") {
    LoneRelay relay;
    auto c = built_by(relay, kCirc, t.config(), HopOptions{true}, kNoExtensions);
    CHECK_FALSE(c.congestion_control().has_value());
    CHECK(c.vegas() == nullptr);
  }
  SECTION("not asked: fixed windows, and an answer anyway closes the circuit") {
    LoneRelay relay;
    auto plain = built_by(relay, kCirc, t.config(), HopOptions{false}, kNoExtensions);
    CHECK_FALSE(plain.congestion_control().has_value());

    LoneRelay pushy;
    ClientCircuit c(kCirc, t.config());
    REQUIRE(c.create(pushy.target()));
    auto created = pushy.answer(std::get<ClientSendCell>(c.take_actions().at(0)), sm_with_sendme_inc(31));
    c.on_cell(cell::CellView{kCirc, cell::CellCommand::Created2, created});
    CHECK(c.state() == ClientCircuit::State::Closed);
    REQUIRE(c.error().has_value());
    CHECK(c.error()->find("congestion control") != std::string::npos);
  }
  SECTION("asked, answered with a sendme_inc more than 1 from ours: closed") {
    for (std::uint8_t inc : {std::uint8_t{0}, std::uint8_t{29}, std::uint8_t{33}, std::uint8_t{100}}) {
      LoneRelay relay;
      ClientCircuit c(kCirc, t.config());
      REQUIRE(c.create(relay.target(), HopOptions{true}));
      auto created = relay.answer(std::get<ClientSendCell>(c.take_actions().at(0)), sm_with_sendme_inc(inc));
      c.on_cell(cell::CellView{kCirc, cell::CellCommand::Created2, created});
      INFO("sendme_inc " << int(inc));
      CHECK(c.state() == ClientCircuit::State::Closed);
    }
  }
}

TEST_CASE("client cc: asking needs a clock and cc_alg != 0, and an agreed hop is the last", "[client_circuit][cc]") {
  LoneRelay relay;
  ClientCircuit no_clock(kCirc);
  CHECK_FALSE(no_clock.create(relay.target(), HopOptions{true}));
  FakeTime t;
  auto cfg = t.config();
  cfg.cc.alg = CcAlg::FixedWindow;
  ClientCircuit off(kCirc, cfg);
  CHECK_FALSE(off.create(relay.target(), HopOptions{true}));

  auto c = built_by(relay, kCirc, t.config(), HopOptions{true}, sm_with_sendme_inc(31));
  CHECK_FALSE(c.extend(LoneRelay{}.target()));
}

TEST_CASE("client cc: a v1 SENDME every sendme_inc DATA cells, with that cell's tag", "[client_circuit][cc][sendme]") {
  FakeTime t;
  LoneRelay relay;
  auto c = built_by(relay, kCirc, t.config(), HopOptions{true}, sm_with_sendme_inc(31));
  std::vector<crypto::SendmeDigest> digests;
  std::vector<ClientCircuitAction> actions;
  for (int i = 0; i < 93; ++i) {
    auto payload = std::move(cell::encode_relay_msg_payload(StreamId{1}, cell::DataMsg{kChunk})).value();
    digests.push_back(relay.hop->originate_backward(payload));
    relay_cell(c, {payload.begin(), payload.end()});
    for (auto& a : c.take_actions()) actions.push_back(std::move(a));
  }
  REQUIRE(c.state() == ClientCircuit::State::Ready);
  const auto sendmes = sendmes_seen_by(relay, actions);
  REQUIRE(sendmes.size() == 3);  // after cells 31, 62, 93 (fixed windows: none before 100)
  for (std::size_t i = 0; i < sendmes.size(); ++i) CHECK(sendmes[i] == sendme_with(digests[31 * (i + 1) - 1]));
  CHECK(of_type<ClientDeliver>(actions).size() == 93);
}

TEST_CASE("client cc: Vegas's cwnd is the package window, SENDMEs grow it, a wrong tag closes", "[client_circuit][cc][sendme]") {
  FakeTime t;
  LoneRelay relay;
  auto c = built_by(relay, kCirc, t.config(), HopOptions{true}, sm_with_sendme_inc(31));
  const std::uint64_t cwnd0 = c.vegas()->cwnd();

  // Fill the window; the relay records the tag of every 31st cell it reads.
  std::vector<crypto::SendmeDigest> due;
  std::size_t sent = 0;
  while (c.can_send_data()) {
    REQUIRE(c.send(HopNum{1}, StreamId{1}, cell::DataMsg{kChunk}));
    ++sent;
    for (const auto& cell_out : cells_of(c.take_actions())) {
      cell::RelayPayload p{};
      std::copy(cell_out.body.view().begin(), cell_out.body.view().end(), p.begin());
      REQUIRE(relay.hop->decrypt_forward(p) == crypto::ForwardVerdict::Recognized);
      if (sent % 31 == 0) due.push_back(*relay.hop->last_received_digest());
    }
  }
  CHECK(sent == cwnd0);  // 124, not the fixed window's 1000
  REQUIRE(due.size() == cwnd0 / 31);

  // Each SENDME 10 ms after the last: in slow start cwnd grows.
  for (const auto& d : due) {
    t.now += std::chrono::milliseconds(10);
    relay_cell(c, relay.originate(StreamId{0}, sendme_with(d)));
    REQUIRE(c.state() == ClientCircuit::State::Ready);
    CHECK(of_type<ClientSendmeAccepted>(c.take_actions()).size() == 1);
  }
  CHECK(c.vegas()->cwnd() > cwnd0);
  CHECK(c.vegas()->inflight() == 0);
  CHECK(c.vegas()->rtt().min_usec() > 0);
  CHECK(c.can_send_data());

  // 31 more cells, then a SENDME whose tag is not the 31st's: a violation.
  for (int i = 0; i < 31; ++i) REQUIRE(c.send(HopNum{1}, StreamId{1}, cell::DataMsg{kChunk}));
  (void)c.take_actions();
  crypto::SendmeDigest wrong{};
  wrong.fill(0x77);
  relay_cell(c, relay.originate(StreamId{0}, sendme_with(wrong)));
  CHECK(c.state() == ClientCircuit::State::Closed);
  CHECK(c.error().has_value());
}

TEST_CASE("client cc: without agreement the fixed windows hold: 1000 cells, SENDME per 100", "[client_circuit][cc][sendme]") {
  FakeTime t;
  LoneRelay relay;
  auto c = built_by(relay, kCirc, t.config(), HopOptions{true}, kNoExtensions);  // an exit that does not offer it
  std::size_t sent = 0;
  while (c.can_send_data()) {
    REQUIRE(c.send(HopNum{1}, StreamId{1}, cell::DataMsg{kChunk}));
    ++sent;
  }
  CHECK(sent == 1000);
  (void)c.take_actions();
  std::vector<ClientCircuitAction> actions;
  for (int i = 0; i < 100; ++i) {
    relay_cell(c, relay.originate(StreamId{1}, cell::DataMsg{kChunk}));
    for (auto& a : c.take_actions()) actions.push_back(std::move(a));
  }
  CHECK(cells_of(actions).size() == 1);  // one SENDME, after the 100th
}

TEST_CASE("client cc: a circuit blocked on its channel says no to DATA, but a chosen cell still goes",
          "[client_circuit][cc]") {
  // tor's circuit_blocked_on_n_chan stops the edge's streams; the window is
  // not touched, so a Conflux set that chose this leg can still send.
  FakeTime t;
  bool blocked = false;
  auto cfg = t.config();
  cfg.channel_state = [&blocked] { return CcChannelState{blocked, blocked ? 256U : 0U}; };
  LoneRelay relay;
  auto c = built_by(relay, kCirc, cfg, HopOptions{true}, sm_with_sendme_inc(31));
  CHECK(c.can_send_data());
  blocked = true;
  CHECK(c.blocked_on_channel());
  CHECK_FALSE(c.can_send_data());
  CHECK(c.send(HopNum{1}, StreamId{1}, cell::DataMsg{std::vector<std::uint8_t>(10, 1)}));
  blocked = false;
  CHECK(c.can_send_data());
}
