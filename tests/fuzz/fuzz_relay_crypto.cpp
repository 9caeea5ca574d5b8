// tor1 relay crypto under fuzzed keys, payloads and operation sequences.
// A well-formed 3-hop circuit must always deliver a client cell to exactly
// the addressed hop (plaintext intact apart from Recognized/Digest, same
// SENDME digest at both ends) and a relay's cell to the client from exactly
// that relay. A second circuit is fed raw garbage in both directions, which
// must never crash and must be reported as Forward / NotRecognized.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/relay_crypto.hpp"

namespace {

using namespace conflux;
using namespace conflux::crypto;
using Payload = std::array<std::uint8_t, kRelayPayloadLen>;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

// Reads the fuzz input front to back; past the end it yields zeros so every
// input drives a full run.
struct Input {
  std::span<const std::uint8_t> data;
  std::size_t pos = 0;
  [[nodiscard]] bool done() const { return pos >= data.size(); }
  std::uint8_t byte() { return pos < data.size() ? data[pos++] : 0; }
  void fill(std::span<std::uint8_t> out) {
    for (auto& b : out) b = byte();
  }
  // A payload: a length byte says how many input bytes to take; the rest is
  // a pattern, which keeps inputs short while still covering all 509 bytes.
  Payload payload() {
    Payload p{};
    const std::size_t n = std::min<std::size_t>(byte() * 2u, p.size());
    fill(std::span(p).first(n));
    const std::uint8_t seed = byte();
    for (std::size_t i = n; i < p.size(); ++i) p[i] = static_cast<std::uint8_t>(seed + i * 7u);
    return p;
  }
};

// Raw key bytes from the input. Only for the garbage circuit: with chosen
// keys, two hops can share Kb and Db, and then their layers cancel and the
// wrong hop legitimately recognizes a cell (a property of tor1, which relies
// on independent handshakes, not a bug to find).
RelayCryptoKeys raw_keys_from(Input& in) {
  std::array<std::uint8_t, RelayCryptoKeys::kMaterialLen> m{};
  in.fill(m);
  auto k = RelayCryptoKeys::from_key_material(m);
  check(k.has_value());
  return *k;
}

// Independent per-hop keys, as real handshakes produce: the input bytes only
// seed a KDF that also separates the hops.
RelayCryptoKeys kdf_keys_from(Input& in, std::size_t hop) {
  std::array<std::uint8_t, 32> seed{};
  in.fill(seed);
  const std::array<std::uint8_t, 1> info{static_cast<std::uint8_t>(hop)};
  const auto m = hkdf_sha256(seed, {}, info, RelayCryptoKeys::kMaterialLen);
  auto k = RelayCryptoKeys::from_key_material(m);
  check(k.has_value());
  return *k;
}

Payload sealed_form(Payload p, const SendmeDigest& d) {
  p[1] = p[2] = 0;
  std::copy_n(d.begin(), 4, p.begin() + 5);
  return p;
}

struct Circuit {
  ClientRelayCrypto client;
  std::vector<RelayHopCrypto> relays;
  Circuit(Input& in, bool independent_keys) {
    relays.reserve(3);
    for (std::size_t i = 0; i < 3; ++i) {
      const RelayCryptoKeys k = independent_keys ? kdf_keys_from(in, i + 1) : raw_keys_from(in);
      auto h = client.add_hop(k);
      check(h.has_value() && h->value() == i + 1);
      relays.emplace_back(k);
    }
  }
};

void client_to_hop(Circuit& c, std::size_t target, const Payload& original) {
  Payload p = original;
  auto sent = c.client.encrypt_outbound(HopNum(static_cast<std::uint8_t>(target)), p);
  check(sent.has_value());
  for (std::size_t i = 0; i < 3; ++i) {
    const ForwardVerdict v = c.relays[i].decrypt_forward(p);
    if (i + 1 < target) {
      check(v == ForwardVerdict::Forward);
    } else {
      check(v == ForwardVerdict::Recognized);
      break;
    }
  }
  check(p == sealed_form(original, *sent));
  check(c.relays[target - 1].last_received_digest() == *sent);
  check(c.client.last_sent_digest(HopNum(static_cast<std::uint8_t>(target))) == *sent);
}

void hop_to_client(Circuit& c, std::size_t origin, const Payload& original) {
  Payload p = original;
  const SendmeDigest d = c.relays[origin - 1].originate_backward(p);
  for (std::size_t i = origin - 1; i > 0; --i) c.relays[i - 1].relay_backward(p);
  auto from = c.client.decrypt_inbound(p);
  check(from.has_value() && from->value() == origin);
  check(p == sealed_form(original, d));
  check(c.client.last_received_digest(HopNum(static_cast<std::uint8_t>(origin))) == d);
  check(c.relays[origin - 1].last_sent_digest() == d);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in{std::span(data, size)};
  Circuit good(in, true);
  Circuit victim(in, false);

  for (int steps = 0; steps < 64 && !in.done(); ++steps) {
    const std::uint8_t op = in.byte();
    const std::uint8_t arg = in.byte();
    const std::size_t hop = 1u + arg % 3u;
    switch (op % 5) {
      case 0:
        client_to_hop(good, hop, in.payload());
        break;
      case 1:
        hop_to_client(good, hop, in.payload());
        break;
      case 2: {  // garbage from the client side into one relay
        Payload p = in.payload();
        const ForwardVerdict v = victim.relays[hop - 1].decrypt_forward(p);
        check(v == ForwardVerdict::Forward || v == ForwardVerdict::Recognized);
        break;
      }
      case 3: {  // garbage arriving at the client
        Payload p = in.payload();
        auto r = victim.client.decrypt_inbound(p);
        check(r.has_value() ? r->value() >= 1 && r->value() <= 3 : r.error() == RelayCryptoError::NotRecognized);
        break;
      }
      default: {  // any hop number: only 1..3 exist
        Payload p = in.payload();
        const Payload before = p;
        auto r = victim.client.encrypt_outbound(HopNum(arg), p);
        if (arg >= 1 && arg <= 3) {
          check(r.has_value());
        } else {
          check(!r.has_value() && r.error() == RelayCryptoError::NoSuchHop && p == before);
        }
        break;
      }
    }
  }
  return 0;
}
