// The per-cell path of tor1 relay crypto allocates nothing. This binary replaces operator new and hooks
// OpenSSL's allocator to count, so it is kept apart from the other tests.
#include <catch2/catch.hpp>

#include <openssl/crypto.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#include "conflux/crypto/aes_ctr.hpp"
#include "conflux/crypto/digest.hpp"
#include "conflux/crypto/random.hpp"
#include "conflux/crypto/relay_crypto.hpp"
#include "relay_crypto_test_support.hpp"
#include "test_support.hpp"

using namespace conflux;
using namespace conflux::crypto;
using conflux::test::hex;
using conflux::test::unhex;
using namespace conflux::test::relay_crypto;

// ---------------------------------------------------------------------------
// Allocation counting: every operator new in this binary and every OpenSSL
// allocation (hooked before main, before OpenSSL allocates anything).
namespace {
std::size_t g_allocs = 0;
void* counting_malloc(std::size_t n, const char*, int) {
  ++g_allocs;
  return std::malloc(n);
}
void* counting_realloc(void* p, std::size_t n, const char*, int) {
  ++g_allocs;
  return std::realloc(p, n);
}
void counting_free(void* p, const char*, int) { std::free(p); }
const bool g_openssl_hooked = CRYPTO_set_mem_functions(counting_malloc, counting_realloc, counting_free) == 1;
}  // namespace

// Every non-aligned form is replaced, so that new and delete always pair up
// (the sanitizer runtime would otherwise supply some of them).
namespace {
void* counted_new(std::size_t n) noexcept {
  ++g_allocs;
  return std::malloc(n == 0 ? 1 : n);
}
void* counted_new_or_throw(std::size_t n) {
  if (void* p = counted_new(n)) return p;
  throw std::bad_alloc();
}
}  // namespace
void* operator new(std::size_t n) { return counted_new_or_throw(n); }
void* operator new[](std::size_t n) { return counted_new_or_throw(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_new(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

TEST_CASE("the per-cell path allocates nothing", "[relay_crypto][alloc]") {
  // OpenSSL 3.0 allocates a provider context on every EVP_MD_CTX_copy_ex;
  // the running digests are SHA_CTX values (running_sha1.hpp), so a sealed
  // cell (peek) and a recognized one (checkpoint + peek) copy a struct.
  REQUIRE(g_openssl_hooked);
  Circuit3 c(three_random_keys());
  std::array<ForwardVerdict, 3> verdicts{};
  std::size_t seen_by = 0;
  Payload p = random_payload();
  Payload b{};

  const std::size_t before = g_allocs;
  std::size_t ok = 0;
  constexpr int kRounds = 100;
  for (int i = 0; i < kRounds; ++i) {
    auto s = c.client.encrypt_outbound(HopNum(3), p);  // seal
    ok += s.has_value() ? 1u : 0u;
    ok += c.deliver_forward(p, verdicts, seen_by) == 3 ? 1u : 0u;  // recognized at hop 3
    b = p;
    (void)c.send_backward(3, b);                                   // seal
    auto from = c.client.decrypt_inbound(b);                       // recognized at hop 3
    ok += from.has_value() ? 1u : 0u;
  }
  CHECK(ok == 3 * kRounds);
  CHECK(g_allocs - before == 0);

  RelayHopCrypto relay(random_keys());
  Payload garbage = random_payload();
  garbage[1] = 0xff;  // after decryption Recognized is random: check many cells
  const std::size_t f0 = g_allocs;
  std::size_t recognized = 0;
  for (int i = 0; i < 1000; ++i) recognized += relay.decrypt_forward(garbage) == ForwardVerdict::Recognized ? 1u : 0u;
  CHECK(recognized == 0);
  CHECK(g_allocs - f0 == 0);

  // The counters do see both kinds of allocation (so the bounds above mean
  // something): operator new, and OpenSSL's EVP digest copy.
  const std::size_t c0 = g_allocs;
  auto v = std::make_unique<int>(1);
  CHECK(g_allocs == c0 + 1);
  Sha1 evp;
  const std::size_t c1 = g_allocs;
  Sha1 evp_copy = evp;
  CHECK(g_allocs > c1);
}
