// Fuzzes the v0 relay header and every relay message decoder.
//
// The input is read twice:
//  1. as a 509-byte relay payload (zero-extended or cut): header decode, then
//     the body with its own command and with every other message decoder;
//  2. as raw body bytes (up to 498) given to every message decoder, so the
//     fuzzer reaches bodies without having to get Length right.
// Invariants, trapping on violation:
//  - decode(encode(m)) == m, and encoding is idempotent;
//  - the framed payload re-decodes to the same command, stream and message;
//  - header framing round-trips command, stream ID and body.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include "conflux/cell/relay_header.hpp"
#include "conflux/cell/relay_msg.hpp"

using namespace conflux;
using namespace conflux::cell;

namespace {

void zero_pad(std::span<std::uint8_t> s) { std::fill(s.begin(), s.end(), std::uint8_t{0}); }

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void check_message(RelayCommand cmd, bytes::ByteSpan body, StreamId stream) {
  auto m = decode_relay_msg(cmd, body);
  if (!m) return;
  check(command_of(*m) == cmd);

  const auto enc = encode_relay_msg(*m);
  check(enc.size() <= kRelayBodyMaxLen);
  auto again = decode_relay_msg(cmd, enc);
  check(again.has_value());
  check(*again == *m);
  check(encode_relay_msg(*again) == enc);

  auto framed = encode_relay_msg_payload(stream, *m, &zero_pad);
  check(framed.has_value());
  auto view = decode_relay_payload(*framed);
  check(view.has_value());
  check(view->command == cmd && view->stream == stream && view->recognized == 0);
  check(view->body.size() == enc.size() &&
        std::equal(view->body.begin(), view->body.end(), enc.begin()));
  auto from_cell = decode_relay_msg(*view);
  check(from_cell.has_value() && *from_cell == *m);
}

template <std::size_t... I>
void every_decoder(bytes::ByteSpan body, StreamId stream, std::index_sequence<I...>) {
  (check_message(std::variant_alternative_t<I, RelayMsg>::kCommand, body, stream), ...);
}

void all_decoders(bytes::ByteSpan body, StreamId stream) {
  every_decoder(body, stream, std::make_index_sequence<std::variant_size_v<RelayMsg>>{});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const bytes::ByteSpan input(data, size);

  // 1. As a whole relay payload.
  RelayPayload payload{};
  std::memcpy(payload.data(), data, std::min(size, payload.size()));
  if (auto v = decode_relay_payload(payload)) {
    check(v->body.size() <= kRelayBodyMaxLen);
    auto re = encode_relay_payload(v->command, v->stream, v->body, &zero_pad);
    check(re.has_value());
    auto v2 = decode_relay_payload(*re);
    check(v2.has_value());
    check(v2->command == v->command && v2->stream == v->stream && v2->recognized == 0);
    check(std::equal(v2->body.begin(), v2->body.end(), v->body.begin(), v->body.end()));

    check_message(v->command, v->body, v->stream);  // also covers unknown commands
    all_decoders(v->body, v->stream);
  }

  // 2. As a bare body.
  all_decoders(input.first(std::min(size, kRelayBodyMaxLen)), StreamId(1));
  if (size > kRelayBodyMaxLen) {
    // Oversized bodies must be refused, never read.
    check(!decode_relay_msg(RelayCommand::Data, input).has_value());
  }
  return 0;
}
