// Fuzzes the directory document parsers on every input: the relay
// descriptor, the consensus and the detached consensus signature.
//
// Invariants (trap on violation):
//  - an accepted document re-serializes to the canonical form, and parsing
//    that gives an equal value and the same canonical text again;
//  - a descriptor's signed bytes are the prefix + canonical JSON, and the
//    encoder is deterministic;
//  - verification never succeeds on a fuzzed document (no key signed it),
//    and never crashes;
//  - the policy summary parser round-trips through its formatter.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "conflux/dir/consensus.hpp"
#include "conflux/dir/descriptor.hpp"
#include "conflux/dir/fields.hpp"

using namespace conflux;
using namespace conflux::dir;

namespace {

void fuzz_descriptor(std::string_view in) {
  auto d = parse_descriptor(in);
  if (!d) return;
  const std::string enc = encode_descriptor(*d);
  auto again = parse_descriptor(enc);
  if (!again || !(*again == *d)) __builtin_trap();
  if (encode_descriptor(*again) != enc) __builtin_trap();
  const auto signed_bytes = descriptor_signed_bytes(*d);
  if (std::string_view(reinterpret_cast<const char*>(signed_bytes.data()), kDescriptorPrefix.size()) !=
      kDescriptorPrefix)
    __builtin_trap();
  (void)descriptor_digest(*d);
  if (verify_descriptor(*d, d->published)) __builtin_trap();
  auto p = parse_policy_summary(d->exit_policy);
  if (!p || format_policy_summary(*p) != d->exit_policy) __builtin_trap();
}

void fuzz_consensus(std::string_view in) {
  auto c = parse_consensus(in);
  if (!c) return;
  const std::string enc = encode_consensus(*c);
  auto again = parse_consensus(enc);
  if (!again || !(*again == *c)) __builtin_trap();
  if (encode_consensus(*again) != enc) __builtin_trap();
  std::vector<crypto::Ed25519Public> auths;
  for (const auto& s : c->signatures) auths.push_back(s.identity);
  if (!auths.empty() && verify_consensus(*c, auths, c->body.valid_after)) __builtin_trap();
}

void fuzz_signature(std::string_view in) {
  auto s = parse_detached_signature(in);
  if (!s) return;
  const std::string enc = encode_detached_signature(*s);
  auto again = parse_detached_signature(enc);
  if (!again || !(*again == *s) || encode_detached_signature(*again) != enc) __builtin_trap();
}

void fuzz_policy(std::string_view in) {
  auto p = parse_policy_summary(in);
  if (p && format_policy_summary(*p) != in) __builtin_trap();
  (void)valid_protocols(in);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  fuzz_descriptor(in);
  fuzz_consensus(in);
  fuzz_signature(in);
  fuzz_policy(in);
  return 0;
}
