#include "conflux/cell/relay_msg.hpp"

#include <utility>

#include "conflux/bytes/writer.hpp"

namespace conflux::cell {
namespace {

template <std::size_t... I>
constexpr bool commands_distinct(std::index_sequence<I...>) {
  constexpr RelayCommand cmds[] = {std::variant_alternative_t<I, RelayMsg>::kCommand...};
  for (std::size_t a = 0; a < sizeof...(I); ++a)
    for (std::size_t b = a + 1; b < sizeof...(I); ++b)
      if (cmds[a] == cmds[b]) return false;
  return true;
}
static_assert(commands_distinct(std::make_index_sequence<std::variant_size_v<RelayMsg>>{}),
              "each RelayMsg alternative must have its own command");

template <std::size_t I = 0>
Decoded<RelayMsg> dispatch(RelayCommand command, bytes::ByteSpan body) {
  if constexpr (I == std::variant_size_v<RelayMsg>) {
    return fail(DecodeError::UnknownCommand);
  } else {
    using T = std::variant_alternative_t<I, RelayMsg>;
    if (command != T::kCommand) return dispatch<I + 1>(command, body);
    auto m = T::decode(body);
    if (!m) return fail(m.error());
    return RelayMsg(std::in_place_index<I>, std::move(*m));
  }
}

}  // namespace

Decoded<RelayMsg> decode_relay_msg(RelayCommand command, bytes::ByteSpan body) {
  if (body.size() > kRelayBodyMaxLen) return fail(DecodeError::BadLength);
  return dispatch(command, body);
}

std::vector<std::uint8_t> encode_relay_msg(const RelayMsg& msg) {
  bytes::Writer w(kRelayBodyMaxLen);
  std::visit([&w](const auto& m) { m.encode(w); }, msg);
  return std::move(w).take();
}

RelayCommand command_of(const RelayMsg& msg) noexcept {
  return std::visit([](const auto& m) { return std::decay_t<decltype(m)>::kCommand; }, msg);
}

Result<RelayPayload, DecodeError> encode_relay_msg_payload(StreamId stream, const RelayMsg& msg,
                                                           PaddingSource pad) {
  const auto body = encode_relay_msg(msg);
  return encode_relay_payload(command_of(msg), stream, body, pad);
}

}  // namespace conflux::cell
