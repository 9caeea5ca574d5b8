// Fuzzes tor's server descriptor parser and verifier (the bridge's own
// descriptor, fetched from the bridge: hostile input). Seeds: descriptors a
// stock tor 0.4.9 network served (seeds/fuzz_tor_server_descriptor, from
// tests/data/tor), verified at a time inside their certificates' validity,
// so mutations reach the signature checks.
//
// Invariants (trap on violation):
//  - every accepted descriptor's text is a piece of the input starting with
//    "router ", and parses alone to the same identities and onion key;
//  - the list parser and the one-descriptor parser agree on a lone document.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "conflux/dir/tor_server_descriptor.hpp"

using namespace conflux;
using namespace conflux::dir;

namespace {

constexpr std::uint64_t kNow = 1795654010;  // 2026-11-26 00:46:50 UTC, when the seeds were served

void check_alone(std::string_view in, const TorServerDescriptor& d) {
  if (!d.text.starts_with("router ") || in.find(d.text) == std::string_view::npos) __builtin_trap();
  auto again = parse_tor_server_descriptor(d.text, kNow);
  if (!again || again->rsa_identity != d.rsa_identity || again->ed25519_identity != d.ed25519_identity ||
      again->ntor_onion_key != d.ntor_onion_key)
    __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  auto all = parse_tor_server_descriptors(in, kNow);
  auto single = parse_tor_server_descriptor(in, kNow);
  if (single && (!all || all->size() != 1)) __builtin_trap();
  if (!all) return 0;
  for (const auto& d : *all) check_alone(in, d);
  return 0;
}
