// The ntor-v3 extension list (CM/SM body). Checks, on every input:
//  - decode succeeds => encode(decode(b)) == b (the format has one encoding),
//    and every typed helper that accepts an entry rebuilds it exactly;
//  - decode fails => with Truncated or TrailingBytes only;
//  - a list built from the input (entries cut from it) survives
//    decode(encode(list)) == list.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "conflux/crypto/ntor_v3_extensions.hpp"

using namespace conflux::crypto;

namespace {

void check_typed(const NtorV3Extension& e) {
  if (auto r = parse_cc_request(e)) {
    if (!(make_cc_request() == e)) __builtin_trap();
  }
  if (auto r = parse_cc_response(e)) {
    if (!(make_cc_response(*r) == e)) __builtin_trap();
  }
  if (auto r = parse_subproto_request(e)) {
    auto again = make_subproto_request(*r);
    if (!again || !(*again == e)) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::uint8_t> in(data, size);

  auto dec = decode_ntor_v3_extensions(in);
  if (dec) {
    auto enc = encode_ntor_v3_extensions(*dec);
    if (!enc || enc->size() != size || !std::equal(enc->begin(), enc->end(), data)) __builtin_trap();
    for (const auto& e : *dec) check_typed(e);
    for (auto t : {NtorV3ExtType::CcRequest, NtorV3ExtType::CcResponse, NtorV3ExtType::SubprotoRequest}) {
      const NtorV3Extension* first = find_ntor_v3_extension(*dec, t);
      if (first != nullptr && first->type != static_cast<std::uint8_t>(t)) __builtin_trap();
    }
  } else if (dec.error() != NtorV3ExtError::Truncated && dec.error() != NtorV3ExtError::TrailingBytes) {
    __builtin_trap();
  }

  // Build a list straight from the bytes: {type, len % 64, body...} chunks.
  std::vector<NtorV3Extension> built;
  std::size_t i = 0;
  while (i + 2 <= size && built.size() < 255) {
    NtorV3Extension e;
    e.type = data[i];
    std::size_t len = data[i + 1] % 64;
    i += 2;
    len = std::min(len, size - i);
    e.body.assign(data + i, data + i + len);
    i += len;
    built.push_back(std::move(e));
  }
  auto enc = encode_ntor_v3_extensions(built);
  if (!enc) __builtin_trap();
  auto back = decode_ntor_v3_extensions(*enc);
  if (!back || *back != built) __builtin_trap();
  return 0;
}
