// CREATE_FAST (tor-spec 5.1.3) on attacker-chosen bytes, with a fixed client
// X. Byte 0 picks the mode:
//   0: a raw CREATED_FAST body as the client sees it
//   1: a raw CREATE_FAST body as the relay sees it; the client holding that X
//      must accept the relay's reply and agree on keys
//   2: the genuine reply for a fuzzer-chosen Y, XORed with a fuzzer mask: the
//      client accepts exactly the unmodified Y | KH (padding is ignored)
// Nothing may crash.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "conflux/crypto/create_fast.hpp"

using namespace conflux::crypto;

namespace {

constexpr std::size_t kKeyLen = 72;

const FastClientStart& client() {
  static const FastClientStart s = [] {
    FastKey x{};
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::uint8_t>(0x3c ^ (i * 11));
    return FastClient::start_with_x(x);
  }();
  return s;
}

bool same(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

void raw_reply(std::span<const std::uint8_t> reply) {
  auto r = client().state.finish(reply, kKeyLen);
  if (r && (reply.size() < kFastReplyLen || r->size() != kKeyLen)) __builtin_trap();
}

void raw_create(std::span<const std::uint8_t> body) {
  auto srv = fast_server_handshake_with_y(body, FastKey{}, kKeyLen);
  if (srv.has_value() != (body.size() >= kFastKeyLen)) __builtin_trap();
  if (!srv) return;
  FastKey x{};
  std::copy_n(body.begin(), x.size(), x.begin());
  auto c = FastClient::start_with_x(x).state.finish(srv->reply, kKeyLen);
  if (!c || !same(c->view(), srv->keys.view())) __builtin_trap();
}

void mutated_reply(std::span<const std::uint8_t> in) {
  if (in.size() < kFastKeyLen) return;
  FastKey y{};
  std::copy_n(in.begin(), y.size(), y.begin());
  auto srv = fast_server_handshake_with_y(client().x, y, kKeyLen);
  if (!srv) __builtin_trap();
  std::vector<std::uint8_t> reply(srv->reply.begin(), srv->reply.end());
  reply.resize(509, 0);
  auto mask = in.subspan(kFastKeyLen);
  for (std::size_t i = 0; i < reply.size() && i < mask.size(); ++i) reply[i] ^= mask[i];
  const bool unchanged = std::equal(srv->reply.begin(), srv->reply.end(), reply.begin());
  auto c = client().state.finish(reply, kKeyLen);
  if (c.has_value() != unchanged) __builtin_trap();
  if (c && !same(c->view(), srv->keys.view())) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::span<const std::uint8_t> rest(data + 1, size - 1);
  switch (data[0] % 3) {
    case 0: raw_reply(rest); break;
    case 1: raw_create(rest); break;
    default: mutated_reply(rest); break;
  }
  return 0;
}
