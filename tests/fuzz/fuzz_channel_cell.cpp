// Fuzzes the channel-cell framer and every channel-cell body decoder.
//
// Input: byte 0 picks the link version (0 = not negotiated, 1..6), byte 1
// picks the variable-cell limit, the rest is a stream of cells. Each framed
// cell must re-encode to exactly the bytes it was framed from (framing is
// canonical), and every body decoder runs on its payload; a successful decode
// must satisfy decode(encode(x)) == x, and where the body has a single
// encoding followed only by ignorable bytes, encode(x) must be a prefix of the
// payload (exactly equal for VERSIONS, which allows no padding).
#include <cstddef>
#include <cstdint>
#include <variant>
#include <vector>

#include "conflux/cell/auth_challenge_cell.hpp"
#include "conflux/cell/authenticate_cell.hpp"
#include "conflux/cell/certs_cell.hpp"
#include "conflux/cell/channel_cell.hpp"
#include "conflux/cell/create_cells.hpp"
#include "conflux/cell/destroy_cell.hpp"
#include "conflux/cell/netinfo_cell.hpp"
#include "conflux/cell/opaque_relay_cell.hpp"
#include "conflux/cell/padding_cells.hpp"
#include "conflux/cell/versions_cell.hpp"

using namespace conflux;
using namespace conflux::cell;

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

std::vector<std::uint8_t> body_of(std::vector<std::uint8_t> v) { return v; }
std::vector<std::uint8_t> body_of(CellEncoded<std::vector<std::uint8_t>> r) {
  check(r.has_value());  // anything we decoded must be encodable
  return std::move(r).value();
}

bool is_prefix(const std::vector<std::uint8_t>& p, bytes::ByteSpan whole) {
  if (p.size() > whole.size()) return false;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (p[i] != whole[i]) return false;
  return true;
}

enum class Canon { Exact, Prefix, None };

template <class Dec, class Enc>
void try_body(bytes::ByteSpan payload, Dec decode, Enc encode, Canon canon) {
  auto d = decode(payload);
  if (!d.has_value()) return;
  const std::vector<std::uint8_t> enc = body_of(encode(*d));
  auto again = decode(enc);
  check(again.has_value() && *again == *d);
  if (canon == Canon::Exact) check(enc.size() == payload.size() && is_prefix(enc, payload));
  if (canon == Canon::Prefix) check(is_prefix(enc, payload));
}

void all_bodies(bytes::ByteSpan p) {
  try_body(p, decode_versions_cell, encode_versions_cell, Canon::Exact);
  try_body(p, decode_certs_cell, encode_certs_cell, Canon::Prefix);
  try_body(p, decode_auth_challenge_cell, encode_auth_challenge_cell, Canon::Prefix);
  try_body(p, decode_authenticate_cell, encode_authenticate_cell, Canon::Prefix);
  // Unknown address types are dropped, so only decode(encode(x)) == x holds.
  try_body(p, decode_netinfo_cell, encode_netinfo_cell, Canon::None);
  try_body(p, decode_create2_cell, encode_create2_cell, Canon::Prefix);
  try_body(p, decode_created2_cell, encode_created2_cell, Canon::Prefix);
  try_body(p, decode_create_fast_cell, encode_create_fast_cell, Canon::Prefix);
  try_body(p, decode_created_fast_cell, encode_created_fast_cell, Canon::Prefix);
  try_body(p, decode_destroy_cell, encode_destroy_cell, Canon::Prefix);
  try_body(p, decode_padding_cell, encode_padding_cell, Canon::Prefix);
  try_body(p, decode_padding_negotiate_cell, encode_padding_negotiate_cell, Canon::Prefix);
  try_body(p, decode_opaque_relay_cell, encode_opaque_relay_cell, Canon::Exact);
  // Contents are ignored; only the length survives.
  auto vp = decode_vpadding_cell(p);
  check(vp.has_value() == (p.size() <= kMaxVarPayloadLen));
  if (!vp.has_value()) return;
  check(vp->length == p.size());
  check(encode_vpadding_cell(*vp).size() == p.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const auto link = static_cast<LinkVersion>(data[0] % 7);
  // Mostly the default limit; sometimes a small one to exercise the check.
  FramerLimits limits;
  if (data[1] & 0x80) limits.max_var_payload = data[1] & 0x7f;
  bytes::ByteSpan in(data + 2, size - 2);

  // Also decode the raw input as a payload, so body decoders see inputs of
  // every length, not only 509 or a framed Length.
  all_bodies(in);

  std::size_t off = 0;
  while (off <= in.size()) {
    const bytes::ByteSpan rest = in.subspan(off);
    const FrameResult r = frame_cell(rest, link, limits);
    if (const auto* need = std::get_if<NeedMore>(&r)) {
      check(need->total_needed > rest.size());
      break;
    }
    if (const auto* err = std::get_if<FrameError>(&r)) {
      if (err->skip == 0) break;
      check(err->skip <= rest.size());
      off += err->skip;
      continue;
    }
    const Framed& f = std::get<Framed>(r);
    check(f.consumed > 0 && f.consumed <= rest.size());
    const bool var = is_variable_length(f.cell.command, link);
    if (!var) check(f.cell.payload.size() == kCellPayloadLen);
    if (var) check(f.cell.payload.size() <= limits.max_var_payload);

    // Framing is canonical: re-encoding the view gives back the same bytes.
    auto enc = encode_cell(link, f.cell.circ_id, f.cell.command, f.cell.payload);
    check(enc.has_value() && enc->size() == f.consumed && is_prefix(*enc, rest));

    all_bodies(f.cell.payload);
    off += f.consumed;
  }
  return 0;
}
