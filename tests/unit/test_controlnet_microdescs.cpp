// GETINFO md/all, md/id/<fp> and md/name/<nickname> (tor's getinfo_helper_dir):
// the microdescriptor the consensus names for a relay, as served, from the
// program's store by digest; a relay not listed, or without its
// microdescriptor, is 552 Unrecognized key, as tor answers it.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "conflux/control/control_getinfo.hpp"
#include "conflux/controlnet/network_status_info.hpp"

using namespace conflux;

namespace {

dir::RouterEntry relay(std::string nickname, std::uint8_t n, bool rsa) {
  dir::RouterEntry r;
  r.nickname = std::move(nickname);
  r.identity.fill(n);
  r.descriptor_digest.fill(n);
  if (rsa) {
    crypto::RsaFingerprint fp{};
    fp.fill(n);
    r.rsa_identity = fp;
  }
  return r;
}

struct Rig {
  std::map<std::array<std::uint8_t, 32>, std::string> store;
  controlnet::NetworkStatusInfo ns;
  control::ControlInfo info;
  Rig() {
    ns.install_microdescs(info, [this](const std::array<std::uint8_t, 32>& d) -> std::optional<std::string> {
      auto it = store.find(d);
      return it == store.end() ? std::nullopt : std::optional<std::string>(it->second);
    });
  }
};

const std::string kMdA = "onion-key\n-----BEGIN RSA PUBLIC KEY-----\nAAAA\n-----END RSA PUBLIC KEY-----\n"
                         "ntor-onion-key AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA\nid ed25519 AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE\n";
const std::string kMdB = "ntor-onion-key AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI\n";

}  // namespace

TEST_CASE("controlnet: md/id and md/name give the relay's microdescriptor as a data block", "[control][controlnet]") {
  Rig rig;
  std::array<std::uint8_t, 32> a{}, b{};
  a.fill(0x0A);
  b.fill(0x0B);
  rig.store[a] = kMdA;
  rig.store[b] = kMdB;
  dir::ConsensusBody body;
  body.routers = {relay("relayA", 0x0A, true), relay("relayB", 0x0B, true), relay("ours", 0x0C, false)};
  rig.ns.update(body, nullptr);
  const std::string fp_a_hex = "0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A";
  const std::string block_a = "ntor-onion-key AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA\r\n";
  CHECK(rig.info.getinfo("md/id/$" + fp_a_hex).reply ==
        "250+md/id/$" + fp_a_hex +
            "=\r\nonion-key\r\n-----BEGIN RSA PUBLIC KEY-----\r\nAAAA\r\n-----END RSA PUBLIC KEY-----\r\n" + block_a +
            "id ed25519 AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE\r\n.\r\n250 OK\r\n");
  const auto by_id = rig.info.getinfo("md/id/" + fp_a_hex).reply;  // "$" or not, as ns/id
  const auto by_name = rig.info.getinfo("md/name/relayA").reply;
  CHECK(by_id.substr(by_id.find('=')) == by_name.substr(by_name.find('=')));
  CHECK(rig.info.getinfo("md/name/relayB").reply ==
        "250+md/name/relayB=\r\nntor-onion-key AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI\r\n.\r\n250 OK\r\n");
  CHECK(rig.info.getinfo("md/all").reply.find(block_a) != std::string::npos);
  CHECK(rig.info.getinfo("md/all").reply.find("AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI\r\n.\r\n250 OK") !=
        std::string::npos);
}

TEST_CASE("controlnet: md/* of a relay not listed, without an RSA identity or without its microdescriptor is 552",
          "[control][controlnet]") {
  Rig rig;
  const auto unrecognized = [](const std::string& key) { return "552 Unrecognized key \"" + key + "\"\r\n"; };
  CHECK(rig.info.getinfo("md/name/relayA").reply == unrecognized("md/name/relayA"));  // no consensus
  dir::ConsensusBody body;
  body.routers = {relay("relayA", 0x0A, true), relay("ours", 0x0C, false)};
  rig.ns.update(body, nullptr);
  CHECK(rig.info.getinfo("md/name/relayA").reply == unrecognized("md/name/relayA"));  // not held
  CHECK(rig.info.getinfo("md/name/ours").reply == unrecognized("md/name/ours"));      // no RSA identity
  CHECK(rig.info.getinfo("md/name/nobody").reply == unrecognized("md/name/nobody"));  // not listed
  CHECK(rig.info.getinfo("md/id/" + std::string(40, 'F')).reply == unrecognized("md/id/" + std::string(40, 'F')));
  CHECK(rig.info.getinfo("md/id/nothex").reply == unrecognized("md/id/nothex"));
  CHECK(rig.info.getinfo("md/all").reply == "250-md/all=\r\n250 OK\r\n");
}

TEST_CASE("controlnet: an unknown md key fails the whole GETINFO, known keys beside it too", "[control][controlnet]") {
  Rig rig;
  CHECK(rig.info.getinfo("md/all md/id/" + std::string(40, 'A')).reply ==
        "552 Unrecognized key \"md/id/" + std::string(40, 'A') + "\"\r\n");
}

// Issue 17: ns/id/ and ns/name/ as tor's getinfo_helper_networkstatus and
// handle_control_getinfo answer them.
TEST_CASE("controlnet: ns/id and ns/name of a relay not listed are 552, a malformed id 551", "[control][controlnet][ns]") {
  controlnet::NetworkStatusInfo ns;
  control::ControlInfo info;
  ns.install(info);
  const std::string unknown_fp(40, 'F');
  // No consensus yet: every ns/ key is empty, as tor's (even a malformed id).
  CHECK(info.getinfo("ns/id/" + unknown_fp).reply == "250-ns/id/" + unknown_fp + "=\r\n250 OK\r\n");
  CHECK(info.getinfo("ns/id/nothex").reply == "250-ns/id/nothex=\r\n250 OK\r\n");
  CHECK(info.getinfo("ns/name/relayA").reply == "250-ns/name/relayA=\r\n250 OK\r\n");

  dir::ConsensusBody body;
  body.routers = {relay("relayA", 0x0A, true)};
  ns.update(body, nullptr);
  const std::string fp_a = "0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A";
  CHECK(info.getinfo("ns/id/$" + fp_a).reply.rfind("250+ns/id/$" + fp_a + "=\r\nr relayA ", 0) == 0);
  CHECK(info.getinfo("ns/id/" + fp_a).reply.rfind("250+ns/id/" + fp_a + "=\r\nr relayA ", 0) == 0);
  CHECK(info.getinfo("ns/name/relayA").reply.rfind("250+ns/name/relayA=\r\nr relayA ", 0) == 0);
  // Not listed: 552 with tor's default message.
  CHECK(info.getinfo("ns/id/" + unknown_fp).reply == "552 Unrecognized key \"ns/id/" + unknown_fp + "\"\r\n");
  CHECK(info.getinfo("ns/id/$" + unknown_fp).reply == "552 Unrecognized key \"ns/id/$" + unknown_fp + "\"\r\n");
  CHECK(info.getinfo("ns/name/nobody").reply == "552 Unrecognized key \"ns/name/nobody\"\r\n");
  // Not 40 hex digits: tor's helper fails with its message, 551, and the whole command with it.
  CHECK(info.getinfo("ns/id/nothex").reply == "551 Data not decodeable as hex\r\n");
  CHECK(info.getinfo("ns/id/" + fp_a.substr(1)).reply == "551 Data not decodeable as hex\r\n");
  CHECK(info.getinfo("ns/name/relayA ns/id/$XYZ").reply == "551 Data not decodeable as hex\r\n");
}
