// Congestion-control consensus parameters (tor 0.4.9's names, defaults and
// ranges) and the ntor-v3 negotiation of congestion control (prop 324 s10).
#include <catch2/catch.hpp>

#include "conflux/proto/cc_negotiation.hpp"
#include "conflux/proto/cc_params.hpp"

using namespace conflux;
using namespace conflux::proto;
using crypto::NtorV3Extension;

TEST_CASE("cc params: an empty params line gives tor's code defaults", "[cc][params]") {
  const auto built = cc_params_from({});
  const CcParams& p = built.params;
  CHECK(built.adjusted.empty());
  CHECK(p.alg == CcAlg::Vegas);
  CHECK(p.enabled());
  CHECK(p.sendme_inc == 31);
  CHECK(p.cwnd_init == 124);
  CHECK(p.cwnd_min == 124);
  CHECK(p.cwnd_max == 2147483647u);
  CHECK(p.cwnd_inc == 1);
  CHECK(p.cwnd_inc_pct_ss == 100);
  CHECK(p.cwnd_inc_rate == 31);
  CHECK(p.ewma_cwnd_pct == 50);
  CHECK(p.ewma_max == 10);
  CHECK(p.ewma_ss == 2);
  CHECK(p.rtt_reset_pct == 100);
  CHECK(p.bwe_min == 5);
  CHECK(p.ss_cwnd_max == 5000);
  CHECK(p.cwnd_full_gap == 4);
  CHECK(p.cwnd_full_minpct == 25);
  CHECK(p.cwnd_full_per_cwnd == 1);
  CHECK(p.vegas(CcPathType::Exit) == VegasParams{186, 248, 186, 310, 600});
  CHECK(p.vegas(CcPathType::Onion) == VegasParams{186, 372, 248, 434, 475});
  CHECK(p.vegas(CcPathType::Sbws) == VegasParams{93, 155, 124, 248, 400});
  CHECK(p.circwindow == 1000);
  CHECK(p.cellq_high == 256);
  CHECK(p.cellq_low == 10);
  CHECK(p.orconn_high == 32768);
  CHECK(p.orconn_low == 16384);
  CHECK(p.xoff_client_bytes == 500 * 488);
  CHECK(p.xoff_exit_bytes == 500 * 488);
  CHECK(p.xon_rate_bytes == 500 * 498);
  CHECK(p.xon_change_pct == 25);
  CHECK(p.xon_ewma_cnt == 2);
  CHECK(p == CcParams{});
}

TEST_CASE("cc params: values in range are taken as given", "[cc][params]") {
  const auto built = cc_params_from({{"cc_alg", 0},
                                     {"cc_sendme_inc", 33},
                                     {"cc_cwnd_init", 200},
                                     {"cc_vegas_alpha_exit", 100},
                                     {"cc_sscap_onion", 1000},
                                     {"cc_vegas_delta_sbws", 300},
                                     {"cc_xoff_exit", 1000},
                                     {"cc_xon_rate", 10},
                                     {"circwindow", 500},
                                     {"some_other_param", 7}});
  const CcParams& p = built.params;
  CHECK(built.adjusted.empty());
  CHECK(p.alg == CcAlg::FixedWindow);
  CHECK_FALSE(p.enabled());
  CHECK(p.sendme_inc == 33);
  CHECK(p.cwnd_init == 200);
  CHECK(p.vegas_exit.alpha == 100);
  CHECK(p.vegas_exit.beta == 248);
  CHECK(p.vegas_onion.ss_cwnd_cap == 1000);
  CHECK(p.vegas_sbws.delta == 300);
  CHECK(p.xoff_exit_bytes == 1000 * 488);
  CHECK(p.xoff_client_bytes == 500 * 488);
  CHECK(p.xon_rate_bytes == 10 * 498);
  CHECK(p.circwindow == 500);
}

TEST_CASE("cc params: out-of-range values are clamped as networkstatus_get_param does", "[cc][params]") {
  const auto built = cc_params_from({{"cc_sendme_inc", 0},
                                     {"cc_cwnd_min", 5000},
                                     {"cc_cwnd_max", 10},
                                     {"cc_cwnd_inc_rate", 251},
                                     {"cc_vegas_gamma_exit", -5},
                                     {"cc_xoff_client", 20000},
                                     {"cc_xon_change_pct", 100},
                                     {"circwindow", 50}});
  const CcParams& p = built.params;
  CHECK(p.sendme_inc == 1);
  CHECK(p.cwnd_min == 1000);
  CHECK(p.cwnd_max == 500);
  CHECK(p.cwnd_inc_rate == 250);
  CHECK(p.vegas_exit.gamma == 0);
  CHECK(p.xoff_client_bytes == 10000 * 488);
  CHECK(p.xon_change_pct == 99);
  CHECK(p.circwindow == 100);
  // Reported in the order read, with the value given and the value used.
  REQUIRE(built.adjusted.size() == 8);
  CHECK(built.adjusted[0] == CcParamAdjustment{"cc_sendme_inc", 0, 1});
  CHECK(built.adjusted[1] == CcParamAdjustment{"cc_cwnd_min", 5000, 1000});
  CHECK(built.adjusted[2] == CcParamAdjustment{"cc_cwnd_max", 10, 500});
  CHECK(built.adjusted[3] == CcParamAdjustment{"cc_cwnd_inc_rate", 251, 250});
  CHECK(built.adjusted[4] == CcParamAdjustment{"cc_vegas_gamma_exit", -5, 0});
  CHECK(built.adjusted[5] == CcParamAdjustment{"circwindow", 50, 100});
  CHECK(built.adjusted[6] == CcParamAdjustment{"cc_xoff_client", 20000, 10000});
  CHECK(built.adjusted[7] == CcParamAdjustment{"cc_xon_change_pct", 100, 99});
}

TEST_CASE("cc params: cc_alg other than 0 and 2 falls back to Vegas", "[cc][params]") {
  for (std::int32_t alg : {1, 3, 7}) {
    INFO("cc_alg " << alg);
    const auto built = cc_params_from({{"cc_alg", alg}});
    CHECK(built.params.alg == CcAlg::Vegas);
    // 7 is first clamped to 3 (and reported), then replaced.
    REQUIRE(built.adjusted.size() == (alg == 7 ? 2u : 1u));
    CHECK(built.adjusted.back() == CcParamAdjustment{"cc_alg", alg, 2});
  }
}

TEST_CASE("cc params: a negative cc_alg is clamped to 0, which turns congestion control off", "[cc][params]") {
  const auto built = cc_params_from({{"cc_alg", -1}});
  CHECK(built.params.alg == CcAlg::FixedWindow);
  REQUIRE(built.adjusted.size() == 1);
  CHECK(built.adjusted[0] == CcParamAdjustment{"cc_alg", -1, 0});
}

TEST_CASE("cc params: fields tor keeps narrower than their range wrap as in tor", "[cc][params]") {
  const auto built = cc_params_from({{"cc_ewma_max", 300}, {"cc_ewma_ss", 258}, {"cc_vegas_delta_exit", 70000}});
  CHECK(built.adjusted.empty());  // all inside their consensus ranges
  CHECK(built.params.ewma_max == 44);          // 300 mod 256
  CHECK(built.params.ewma_ss == 2);            // 258 mod 256
  CHECK(built.params.vegas_exit.delta == 4464);  // 70000 mod 65536
}

// ---- negotiation -------------------------------------------------------------

TEST_CASE("cc negotiation: the client asks with an empty 0x01 entry unless cc_alg is 0", "[cc][negotiation]") {
  const auto req = cc_client_request(CcParams{});
  REQUIRE(req.size() == 1);
  CHECK(req[0] == NtorV3Extension{0x01, {}});
  auto cm = crypto::encode_ntor_v3_extensions(req);
  REQUIRE(cm.has_value());
  CHECK(*cm == std::vector<std::uint8_t>{0x01, 0x01, 0x00});

  CcParams off;
  off.alg = CcAlg::FixedWindow;
  CHECK(cc_client_request(off).empty());
}

TEST_CASE("cc negotiation: the exit answers a request with its sendme_inc", "[cc][negotiation]") {
  CcParams ours;
  ours.sendme_inc = 32;
  const std::vector<std::uint8_t> cm{0x02, 0x07, 0x00, 0x01, 0x00};  // unknown type 7 first, then 0x01
  auto ans = cc_exit_answer(std::span<const std::uint8_t>(cm), ours);
  REQUIRE(ans.has_value());
  CHECK(ans->agreement == CcAgreement{32});
  REQUIRE(ans->reply.size() == 1);
  auto sm = crypto::encode_ntor_v3_extensions(ans->reply);
  REQUIRE(sm.has_value());
  CHECK(*sm == std::vector<std::uint8_t>{0x01, 0x02, 0x01, 0x20});
}

TEST_CASE("cc negotiation: tor counts a request by its type, whatever its body", "[cc][negotiation]") {
  const std::vector<std::uint8_t> cm{0x01, 0x01, 0x02, 0xaa, 0xbb};
  auto ans = cc_exit_answer(std::span<const std::uint8_t>(cm), CcParams{});
  REQUIRE(ans.has_value());
  CHECK(ans->agreement == CcAgreement{31});
}

TEST_CASE("cc negotiation: no request, or cc off at the exit, gives an empty answer", "[cc][negotiation]") {
  const std::vector<std::uint8_t> empty{0x00};
  auto a = cc_exit_answer(std::span<const std::uint8_t>(empty), CcParams{});
  REQUIRE(a.has_value());
  CHECK_FALSE(a->agreement.has_value());
  CHECK(a->reply.empty());

  CcParams off;
  off.alg = CcAlg::FixedWindow;
  const std::vector<std::uint8_t> asks{0x01, 0x01, 0x00};
  auto b = cc_exit_answer(std::span<const std::uint8_t>(asks), off);
  REQUIRE(b.has_value());
  CHECK_FALSE(b->agreement.has_value());
  CHECK(b->reply.empty());
}

TEST_CASE("cc negotiation: a malformed client message refuses the handshake", "[cc][negotiation]") {
  const std::vector<std::uint8_t> truncated{0x01, 0x01};
  auto a = cc_exit_answer(std::span<const std::uint8_t>(truncated), CcParams{});
  REQUIRE_FALSE(a.has_value());
  CHECK(a.error() == CcNegotiationError::MalformedList);
}

TEST_CASE("cc negotiation: the client accepts sendme_inc within 1 of its own", "[cc][negotiation]") {
  for (std::uint8_t inc : std::initializer_list<std::uint8_t>{30, 31, 32}) {
    const std::vector<std::uint8_t> sm{0x01, 0x02, 0x01, inc};
    auto r = cc_client_accept(std::span<const std::uint8_t>(sm), true, 31);
    REQUIRE(r.has_value());
    CHECK(*r == std::optional<CcAgreement>{CcAgreement{inc}});
  }
}

TEST_CASE("cc negotiation: the client refuses sendme_inc 0 or more than 1 away", "[cc][negotiation]") {
  for (std::uint8_t inc : std::initializer_list<std::uint8_t>{0, 1, 29, 33, 62, 255}) {
    INFO("sendme_inc " << int{inc});
    const std::vector<std::uint8_t> sm{0x01, 0x02, 0x01, inc};
    auto r = cc_client_accept(std::span<const std::uint8_t>(sm), true, 31);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == CcNegotiationError::SendmeIncOutOfRange);
  }
  CHECK(cc_sendme_inc_acceptable(1, 1));
  CHECK(cc_sendme_inc_acceptable(2, 1));
  CHECK_FALSE(cc_sendme_inc_acceptable(0, 1));
  CHECK(cc_sendme_inc_acceptable(255, 254));
  CHECK_FALSE(cc_sendme_inc_acceptable(255, 253));
}

TEST_CASE("cc negotiation: no 0x02 in the answer means fixed windows", "[cc][negotiation]") {
  const std::vector<std::uint8_t> sm{0x01, 0x09, 0x01, 0x1f};  // an unknown type only
  auto r = cc_client_accept(std::span<const std::uint8_t>(sm), true, 31);
  REQUIRE(r.has_value());
  CHECK_FALSE(r->has_value());
}

TEST_CASE("cc negotiation: the client refuses an answer it did not ask for", "[cc][negotiation]") {
  const std::vector<std::uint8_t> sm{0x01, 0x02, 0x01, 0x1f};
  auto r = cc_client_accept(std::span<const std::uint8_t>(sm), false, 31);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() == CcNegotiationError::Unsolicited);
}

TEST_CASE("cc negotiation: an empty 0x02 body refuses, a longer one is read by its first byte",
          "[cc][negotiation]") {
  const std::vector<std::uint8_t> empty{0x01, 0x02, 0x00};
  auto a = cc_client_accept(std::span<const std::uint8_t>(empty), true, 31);
  REQUIRE_FALSE(a.has_value());
  CHECK(a.error() == CcNegotiationError::EmptyResponse);

  const std::vector<std::uint8_t> longer{0x01, 0x02, 0x02, 0x1f, 0x99};
  auto b = cc_client_accept(std::span<const std::uint8_t>(longer), true, 31);
  REQUIRE(b.has_value());
  CHECK(*b == std::optional<CcAgreement>{CcAgreement{31}});
}

TEST_CASE("cc negotiation: only the first 0x02 counts", "[cc][negotiation]") {
  const std::vector<std::uint8_t> sm{0x02, 0x02, 0x01, 0x1f, 0x02, 0x01, 0x63};
  auto r = cc_client_accept(std::span<const std::uint8_t>(sm), true, 31);
  REQUIRE(r.has_value());
  CHECK(*r == std::optional<CcAgreement>{CcAgreement{31}});
}

TEST_CASE("cc negotiation: a malformed server message refuses the handshake", "[cc][negotiation]") {
  const std::vector<std::uint8_t> trailing{0x00, 0x00};
  auto r = cc_client_accept(std::span<const std::uint8_t>(trailing), true, 31);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() == CcNegotiationError::MalformedList);
}

TEST_CASE("cc negotiation: client and exit agree end to end", "[cc][negotiation]") {
  const CcParams client, exit;
  auto cm = crypto::encode_ntor_v3_extensions(cc_client_request(client));
  REQUIRE(cm.has_value());
  auto ans = cc_exit_answer(std::span<const std::uint8_t>(*cm), exit);
  REQUIRE(ans.has_value());
  auto sm = crypto::encode_ntor_v3_extensions(ans->reply);
  REQUIRE(sm.has_value());
  auto r = cc_client_accept(std::span<const std::uint8_t>(*sm), true, client.sendme_inc);
  REQUIRE(r.has_value());
  CHECK(*r == ans->agreement);
}
