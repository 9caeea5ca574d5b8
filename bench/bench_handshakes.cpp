// Circuit handshake throughput: ntor-v3 as Tor's exit hop uses it (CM = a
// congestion-control request, SM = a CC response with sendme_inc 31, 72
// bytes of tor1 key material), and ntor v1 as every other hop uses it.
#include <benchmark/benchmark.h>

#include <optional>
#include <vector>

#include "conflux/crypto/ntor.hpp"
#include "conflux/crypto/ntor_v3.hpp"
#include "conflux/crypto/ntor_v3_extensions.hpp"
#include "conflux/crypto/random.hpp"

using namespace conflux::crypto;

namespace {

constexpr std::size_t kTor1KeyLen = 72;

const std::vector<std::uint8_t>& cc_request_cm() {
  static const std::vector<std::uint8_t> cm = encode_ntor_v3_extensions(std::vector{make_cc_request()}).value();
  return cm;
}

// What an exit does with CM: parse the extensions and answer a CC request.
std::optional<std::vector<std::uint8_t>> exit_policy(std::span<const std::uint8_t> cm) {
  auto exts = decode_ntor_v3_extensions(cm);
  if (!exts) return std::nullopt;
  std::vector<NtorV3Extension> reply;
  if (const auto* req = find_ntor_v3_extension(*exts, NtorV3ExtType::CcRequest); req && parse_cc_request(*req))
    reply.push_back(make_cc_response(31));
  auto enc = encode_ntor_v3_extensions(reply);
  if (!enc) return std::nullopt;
  return std::move(enc).value();
}

NtorV3ServerKeys v3_server() { return {random_array<32>(), X25519Secret::generate(), std::nullopt}; }
NtorServerKeys v1_server() { return {random_array<20>(), X25519Secret::generate(), std::nullopt}; }

void BM_NtorV3_ClientCreateAndFinish(benchmark::State& state) {
  auto server = v3_server();
  // The relay's reply is made with the timer paused: only the client's
  // create and finish (including reading SM's extensions) are timed.
  for (auto _ : state) {
    auto start = NtorV3Client::start(server.node_id, server.onion_key.public_key(), cc_request_cm(),
                                     kNtorV3CircuitVerification);
    state.PauseTiming();
    auto reply = ntor_v3_server_handshake(server, start->onionskin, kNtorV3CircuitVerification, exit_policy,
                                          kTor1KeyLen);
    state.ResumeTiming();
    auto done = start->state.finish(reply->reply, kTor1KeyLen);
    auto sm = decode_ntor_v3_extensions(done->server_message);
    benchmark::DoNotOptimize(sm);
  }
  state.SetLabel("client: create + finish (CC ext)");
}
BENCHMARK(BM_NtorV3_ClientCreateAndFinish)->Unit(benchmark::kMicrosecond);

void BM_NtorV3_Server(benchmark::State& state) {
  auto server = v3_server();
  std::vector<std::vector<std::uint8_t>> skins;
  for (int i = 0; i < 64; ++i)
    skins.push_back(NtorV3Client::start(server.node_id, server.onion_key.public_key(), cc_request_cm(),
                                        kNtorV3CircuitVerification)
                        ->onionskin);
  std::size_t i = 0;
  for (auto _ : state) {
    auto r = ntor_v3_server_handshake(server, skins[i++ % skins.size()], kNtorV3CircuitVerification, exit_policy,
                                      kTor1KeyLen);
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel("relay: receive + CC reply");
}
BENCHMARK(BM_NtorV3_Server)->Unit(benchmark::kMicrosecond);

void BM_NtorV1_ClientCreateAndFinish(benchmark::State& state) {
  auto server = v1_server();
  for (auto _ : state) {
    auto start = NtorClient::start(server.node_id, server.onion_key.public_key());
    state.PauseTiming();
    auto reply = ntor_server_handshake(server, start.onionskin, kTor1KeyLen);
    state.ResumeTiming();
    auto keys = start.state.finish(reply->reply, kTor1KeyLen);
    benchmark::DoNotOptimize(keys);
  }
  state.SetLabel("client: create + finish");
}
BENCHMARK(BM_NtorV1_ClientCreateAndFinish)->Unit(benchmark::kMicrosecond);

void BM_NtorV1_Server(benchmark::State& state) {
  auto server = v1_server();
  std::vector<NtorOnionskin> skins;
  for (int i = 0; i < 64; ++i) skins.push_back(NtorClient::start(server.node_id, server.onion_key.public_key()).onionskin);
  std::size_t i = 0;
  for (auto _ : state) {
    auto r = ntor_server_handshake(server, skins[i++ % skins.size()], kTor1KeyLen);
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel("relay");
}
BENCHMARK(BM_NtorV1_Server)->Unit(benchmark::kMicrosecond);

}  // namespace
