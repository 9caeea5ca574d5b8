// tor1 relay crypto per cell (509-byte payload), per hop. The two "Raw" cases
// are the limit: one AES-128-CTR pass plus one SHA-1 absorb over the same
// buffer, through the EVP wrappers and through the value-type SHA-1 that relay
// crypto uses. Results and the exact command are in docs/BENCHMARKS.md.
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "conflux/crypto/aes_ctr.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/random.hpp"
#include "conflux/crypto/relay_crypto.hpp"

namespace {

using namespace conflux;
using namespace conflux::crypto;
using Payload = std::array<std::uint8_t, kRelayPayloadLen>;

// Cells for the "recognized" cases must be consumed in order, so they are
// made in batches outside the timed region. 512 cells (254 KiB) stay in L2,
// like the single hot buffer of the other cases.
constexpr std::size_t kBatch = 512;

RelayCryptoKeys random_keys() {
  const auto m = random_array<RelayCryptoKeys::kMaterialLen>();
  return *RelayCryptoKeys::from_key_material(m);
}

Payload random_payload() {
  Payload p{};
  random_bytes(p);
  return p;
}

void set_counters(benchmark::State& state) {
  const auto cells = static_cast<double>(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(kRelayPayloadLen));
  // Inverted rate = seconds per cell; printed with an SI prefix ("368n").
  state.counters["per_cell"] =
      benchmark::Counter(cells, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// The limit, EVP: AesCtr::apply + Hasher<Sha1>::update.
void BM_Raw_AesCtr_Sha1Evp(benchmark::State& state) {
  const auto key = random_array<16>();
  AesCtr aes(key);
  Sha1 sha;
  Payload p = random_payload();
  for (auto _ : state) {
    aes.apply(p);
    sha.update(p);
    benchmark::DoNotOptimize(p.data());
  }
  set_counters(state);
}
BENCHMARK(BM_Raw_AesCtr_Sha1Evp);

// Relay, forward direction, the cell is for us: decrypt, checkpoint, absorb,
// peek, compare, commit.
void BM_Relay_DecryptForward_Recognized(benchmark::State& state) {
  std::vector<Payload> cells(kBatch);
  std::optional<RelayHopCrypto> relay;
  std::size_t next = kBatch;
  std::int64_t recognized = 0;
  for (auto _ : state) {
    if (next == kBatch) {
      state.PauseTiming();
      const RelayCryptoKeys k = random_keys();
      ClientRelayCrypto client;
      (void)client.add_hop(k);
      relay.emplace(k);
      for (auto& c : cells) {
        c = random_payload();
        (void)client.encrypt_outbound(HopNum(1), c);
      }
      next = 0;
      state.ResumeTiming();
    }
    recognized += relay->decrypt_forward(cells[next++]) == ForwardVerdict::Recognized ? 1 : 0;
  }
  if (recognized != static_cast<std::int64_t>(state.iterations())) state.SkipWithError("cell not recognized");
  set_counters(state);
}
BENCHMARK(BM_Relay_DecryptForward_Recognized);

// Relay, forward direction, the cell is for a later hop: decrypt and a
// Recognized != 0 test (1 in 65536 also costs a digest check + restore).
void BM_Relay_DecryptForward_Forwarded(benchmark::State& state) {
  RelayHopCrypto relay(random_keys());
  Payload p = random_payload();
  std::int64_t forwarded = 0;
  for (auto _ : state) {
    forwarded += relay.decrypt_forward(p) == ForwardVerdict::Forward ? 1 : 0;
    benchmark::DoNotOptimize(p.data());
  }
  if (forwarded != static_cast<std::int64_t>(state.iterations())) state.SkipWithError("cell recognized");
  set_counters(state);
}
BENCHMARK(BM_Relay_DecryptForward_Forwarded);

// Relay originating a backward cell: seal (absorb + peek) and encrypt.
void BM_Relay_OriginateBackward(benchmark::State& state) {
  RelayHopCrypto relay(random_keys());
  Payload p = random_payload();
  for (auto _ : state) {
    benchmark::DoNotOptimize(relay.originate_backward(p));
  }
  set_counters(state);
}
BENCHMARK(BM_Relay_OriginateBackward);

// Client originating a cell for hop 3: seal with hop 3's digest, 3 layers.
void BM_Client_EncryptOutbound_Hop3(benchmark::State& state) {
  ClientRelayCrypto client;
  for (int i = 0; i < 3; ++i) (void)client.add_hop(random_keys());
  Payload p = random_payload();
  for (auto _ : state) {
    auto d = client.encrypt_outbound(HopNum(3), p);
    benchmark::DoNotOptimize(d);
  }
  set_counters(state);
}
BENCHMARK(BM_Client_EncryptOutbound_Hop3);

// Client receiving a cell from hop 3: 3 layers removed, Recognized tested at
// hops 1 and 2, full digest check at hop 3.
void BM_Client_DecryptInbound_FromHop3(benchmark::State& state) {
  std::vector<Payload> cells(kBatch);
  std::optional<ClientRelayCrypto> client;
  std::size_t next = kBatch;
  std::int64_t from3 = 0;
  for (auto _ : state) {
    if (next == kBatch) {
      state.PauseTiming();
      client.emplace();
      std::vector<RelayHopCrypto> relays;
      for (int i = 0; i < 3; ++i) {
        const RelayCryptoKeys k = random_keys();
        (void)client->add_hop(k);
        relays.emplace_back(k);
      }
      for (auto& c : cells) {
        c = random_payload();
        relays[2].originate_backward(c);
        relays[1].relay_backward(c);
        relays[0].relay_backward(c);
      }
      next = 0;
      state.ResumeTiming();
    }
    auto hop = client->decrypt_inbound(cells[next++]);
    from3 += hop.has_value() && hop->value() == 3 ? 1 : 0;
  }
  if (from3 != static_cast<std::int64_t>(state.iterations())) state.SkipWithError("cell not from hop 3");
  set_counters(state);
}
BENCHMARK(BM_Client_DecryptInbound_FromHop3);

}  // namespace
