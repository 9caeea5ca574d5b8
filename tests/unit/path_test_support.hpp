#pragma once
// Consensus fixtures and a seeded RNG for the path selection tests.
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/dir/consensus.hpp"
#include "conflux/path/net_view.hpp"
#include "conflux/path/random.hpp"

namespace conflux::path::test {

inline constexpr std::uint64_t kNow = 1'800'000'000;

inline Rng seeded(std::uint64_t seed) {
  auto gen = std::make_shared<std::mt19937_64>(seed);
  return [gen] { return (*gen)(); };
}

// Distinct identities that sort in n order.
inline crypto::Ed25519Public id_of(std::uint8_t n) {
  crypto::Ed25519Public id{};
  id[0] = n;
  id[31] = 0xA5;
  return id;
}

// Flags by letter: G(uard) E(xit) F(ast) R(unning) S(table) V(alid).
inline dir::Flags flags(std::string_view letters) {
  dir::Flags f;
  for (char c : letters) {
    switch (c) {
      case 'G': f.guard = true; break;
      case 'E': f.exit = true; break;
      case 'F': f.fast = true; break;
      case 'R': f.running = true; break;
      case 'S': f.stable = true; break;
      case 'V': f.valid = true; break;
      default: break;
    }
  }
  return f;
}

inline constexpr std::string_view kGuardFlags = "GFRSV";
inline constexpr std::string_view kMiddleFlags = "FRSV";
inline constexpr std::string_view kExitFlags = "EFRSV";
inline constexpr std::string_view kGuardExitFlags = "GEFRSV";
inline constexpr std::string_view kWebPolicy = "accept 80,443";
inline constexpr std::string_view kNoExit = "reject 1-65535";

// Relay n on 10.n.0.1 (its own /16) unless told otherwise.
inline dir::RouterEntry relay(std::uint8_t n, std::string_view flag_letters, std::uint64_t bw,
                              std::string_view policy = kNoExit, std::optional<dir::Ipv4> ip = std::nullopt) {
  dir::RouterEntry r;
  r.identity = id_of(n);
  r.nickname = "relay" + std::to_string(n);
  r.ipv4 = ip.value_or(dir::Ipv4{10, n, 0, 1});
  r.or_port = static_cast<std::uint16_t>(9000 + n);
  r.flags = flags(flag_letters);
  r.bandwidth = bw;
  r.ntor_onion_key.fill(n);
  r.exit_policy = std::string(policy);
  r.protocols = "Conflux=1 Link=4-5 Relay=2-4";
  return r;
}

inline NetView net_of(std::vector<dir::RouterEntry> relays,
                      std::optional<dir::BandwidthWeights> weights = std::nullopt) {
  dir::ConsensusBody b;
  b.valid_after = kNow - 600;
  b.fresh_until = kNow + 3000;
  b.valid_until = kNow + 10200;
  b.routers = std::move(relays);
  b.bandwidth_weights = weights;
  return NetView(std::move(b));
}

// Weights with a distinct value per position and class, so a test can
// tell which one was applied.
inline dir::BandwidthWeights distinct_weights() {
  dir::BandwidthWeights w;
  w.scale = 10000;
  w.wgg = 7000; w.wgd = 3000; w.wgm = 0;
  w.wmg = 2000; w.wmm = 10000; w.wme = 1000; w.wmd = 500;
  w.weg = 0; w.wem = 0; w.wee = 9000; w.wed = 4000;
  return w;
}

// Three guards, three middles, three exits and a guard+exit, each on its own /16.
inline std::vector<dir::RouterEntry> small_network() {
  return {relay(1, kGuardFlags, 1000),      relay(2, kGuardFlags, 2000),
          relay(3, kGuardFlags, 3000),      relay(4, kMiddleFlags, 1000),
          relay(5, kMiddleFlags, 2000),     relay(6, kMiddleFlags, 3000),
          relay(7, kExitFlags, 1000, kWebPolicy), relay(8, kExitFlags, 2000, kWebPolicy),
          relay(9, kExitFlags, 3000, "accept 22,80,443"), relay(10, kGuardExitFlags, 1500, kWebPolicy)};
}

// A local test network: every relay on 127.0.0.1 (conflux-net).
inline std::vector<dir::RouterEntry> loopback_network() {
  std::vector<dir::RouterEntry> v;
  const dir::Ipv4 lo{127, 0, 0, 1};
  v.push_back(relay(1, kGuardFlags, 100, kNoExit, lo));
  v.push_back(relay(2, kGuardFlags, 100, kNoExit, lo));
  v.push_back(relay(3, kMiddleFlags, 100, kNoExit, lo));
  v.push_back(relay(4, kExitFlags, 100, kWebPolicy, lo));
  return v;
}

}  // namespace conflux::path::test
