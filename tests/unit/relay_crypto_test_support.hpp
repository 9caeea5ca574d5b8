#pragma once
// Helpers shared by test_relay_crypto.cpp and test_relay_crypto_alloc.cpp:
// payload builders and a 3-hop circuit (client + three relays).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "conflux/crypto/random.hpp"
#include "conflux/crypto/relay_crypto.hpp"
#include "test_support.hpp"

namespace conflux::test::relay_crypto {

using namespace conflux::crypto;

using Payload = std::array<std::uint8_t, kRelayPayloadLen>;

// Compile-time misuse: only an exactly-509-byte buffer is a relay payload.
static_assert(std::is_convertible_v<Payload&, RelayPayload>);
static_assert(!std::is_convertible_v<std::array<std::uint8_t, 508>&, RelayPayload>);
static_assert(!std::is_convertible_v<std::array<std::uint8_t, 510>&, RelayPayload>);
static_assert(!std::is_convertible_v<std::span<std::uint8_t>, RelayPayload>);
static_assert(!std::is_convertible_v<const Payload&, RelayPayload>);

inline RelayCryptoKeys keys_from(std::span<const std::uint8_t> material) {
  auto k = RelayCryptoKeys::from_key_material(material);
  REQUIRE(k.has_value());
  return *k;
}

inline RelayCryptoKeys random_keys() {
  auto m = random_array<RelayCryptoKeys::kMaterialLen>();
  return keys_from(m);
}

inline Payload to_payload(const std::vector<std::uint8_t>& v) {
  REQUIRE(v.size() == kRelayPayloadLen);
  Payload p{};
  std::copy(v.begin(), v.end(), p.begin());
  return p;
}

// A relay cell the way the cell layer would build it, with deliberately
// non-zero Recognized and Digest fields so that sealing must overwrite them.
inline Payload make_plain(std::uint8_t cmd, std::uint16_t stream, std::string_view data, unsigned fill) {
  Payload p{};
  p[0] = cmd;
  p[1] = 0xaa;
  p[2] = 0xaa;
  p[3] = static_cast<std::uint8_t>(stream >> 8);
  p[4] = static_cast<std::uint8_t>(stream);
  p[5] = 0xde;
  p[6] = 0xad;
  p[7] = 0xbe;
  p[8] = 0xef;
  p[9] = static_cast<std::uint8_t>(data.size() >> 8);
  p[10] = static_cast<std::uint8_t>(data.size());
  std::copy(data.begin(), data.end(), p.begin() + 11);
  // Padding: 4 zero bytes then a deterministic pattern standing in for random.
  for (std::size_t i = 11 + data.size() + 4; i < p.size(); ++i) p[i] = static_cast<std::uint8_t>(i * fill);
  return p;
}

inline Payload random_payload() {
  Payload p{};
  random_bytes(p);
  return p;
}

// The plaintext the receiving hop must see: the sender's bytes with
// Recognized = 0 and Digest = first 4 bytes of the running digest.
inline Payload sealed_form(Payload p, const SendmeDigest& d) {
  p[1] = p[2] = 0;
  std::copy_n(d.begin(), 4, p.begin() + 5);
  return p;
}

inline Payload zeroed_fields(Payload p) {
  p[1] = p[2] = 0;
  std::fill_n(p.begin() + 5, 4, std::uint8_t{0});
  return p;
}

// A client and the three relays of its circuit, each relay holding only its
// own hop's keys.
struct Circuit3 {
  ClientRelayCrypto client;
  std::vector<RelayHopCrypto> relays;

  explicit Circuit3(const std::array<RelayCryptoKeys, 3>& keys) {
    relays.reserve(3);
    for (std::size_t i = 0; i < 3; ++i) {
      auto h = client.add_hop(keys[i]);
      REQUIRE(h.has_value());
      REQUIRE(h->value() == i + 1);
      relays.emplace_back(keys[i]);
    }
  }

  // Sends a client cell down the circuit. Returns the 1-based index of the
  // relay that recognized it (0 if none did) and records every verdict.
  std::size_t deliver_forward(Payload& p, std::array<ForwardVerdict, 3>& verdicts, std::size_t& seen_by) {
    seen_by = 0;
    for (std::size_t i = 0; i < 3; ++i) {
      ++seen_by;
      verdicts[i] = relays[i].decrypt_forward(p);
      if (verdicts[i] == ForwardVerdict::Recognized) return i + 1;
    }
    return 0;
  }

  // Relay `origin` (1-based) originates a cell toward the client; the relays
  // between it and the client add their layers.
  SendmeDigest send_backward(std::size_t origin, Payload& p) {
    const SendmeDigest d = relays[origin - 1].originate_backward(p);
    for (std::size_t i = origin - 1; i > 0; --i) relays[i - 1].relay_backward(p);
    return d;
  }
};

std::array<RelayCryptoKeys, 3> three_random_keys() { return {random_keys(), random_keys(), random_keys()}; }

}  // namespace conflux::test::relay_crypto
