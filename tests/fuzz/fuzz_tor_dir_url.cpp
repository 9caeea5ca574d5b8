// Fuzzes the resource lists of tor's directory URLs as a directory cache
// reads them (dir/tor_dir_url.hpp): fingerprints, fp-sk pairs, microdesc
// digests and the consensus URL's authority prefixes, all from the request
// line of whoever opened a BEGIN_DIR stream.
//
// Invariants (trap on violation):
//  - never more than kMaxUrlListItems items;
//  - a fingerprint list re-encodes (upper-case hex joined by '+') to the input
//    up to case; fp-sk likewise with '-' inside each pair;
//  - every digest kept is 43 characters and decodes to 32 bytes;
//  - every authority prefix is 1-40 upper-case hex digits, and a list of
//    prefixes of the given signers is always signed by enough;
//  - strip_z_suffix removes exactly a trailing ".z".
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "conflux/bytes/base64.hpp"
#include "conflux/bytes/hex.hpp"
#include "conflux/dir/tor_dir_url.hpp"

using namespace conflux;
using namespace conflux::dir;

namespace {

bool same_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::toupper(static_cast<unsigned char>(x)) == std::toupper(static_cast<unsigned char>(y));
         });
}

void fuzz_fps(std::string_view in) {
  auto fps = parse_fp_list(in);
  if (fps) {
    if (fps->size() > kMaxUrlListItems) __builtin_trap();
    std::string back;
    for (const auto& f : *fps) back += (back.empty() ? "" : "+") + bytes::to_hex(f, true);
    if (!same_ignoring_case(back, in)) __builtin_trap();
  }
  auto sk = parse_fp_sk_list(in);
  if (sk) {
    if (sk->size() > kMaxUrlListItems) __builtin_trap();
    std::string back;
    for (const auto& [f, s] : *sk) back += (back.empty() ? "" : "+") + bytes::to_hex(f, true) + "-" + bytes::to_hex(s, true);
    if (!same_ignoring_case(back, in)) __builtin_trap();
  }
}

void fuzz_digests(std::string_view in) {
  auto ds = parse_microdesc_digests(in);
  if (!ds) return;
  if (ds->size() > kMaxUrlListItems) __builtin_trap();
  for (const auto& d : *ds) {
    auto b = bytes::base64_decode(d);
    if (d.size() != 43 || !b || b->size() != 32) __builtin_trap();
  }
}

void fuzz_prefixes(std::string_view in) {
  auto w = parse_authority_prefixes(in);
  if (!w) return;
  if (w->empty() || w->size() > kMaxUrlListItems) __builtin_trap();
  std::vector<crypto::RsaFingerprint> signers;
  for (const auto& p : *w) {
    if (p.empty() || p.size() > 40) __builtin_trap();
    for (char c : p)
      if (!std::isxdigit(static_cast<unsigned char>(c)) || std::islower(static_cast<unsigned char>(c))) __builtin_trap();
    // A signer whose fingerprint starts with this prefix.
    const std::string full = p + std::string(40 - p.size(), '0');
    auto b = bytes::from_hex(full);
    if (!b) __builtin_trap();
    crypto::RsaFingerprint f{};
    std::copy(b->begin(), b->end(), f.begin());
    signers.push_back(f);
  }
  if (!signed_by_enough(signers, *w)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  bool z = false;
  const auto stripped = strip_z_suffix(in, &z);
  if (z != (in.size() > 2 && in.ends_with(".z")) || stripped.size() != in.size() - (z ? 2 : 0)) __builtin_trap();
  fuzz_fps(stripped);
  fuzz_digests(stripped);
  fuzz_prefixes(stripped);
  return 0;
}
