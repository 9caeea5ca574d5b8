#pragma once
// Relay message bodies that act on the circuit (stream ID 0, except stream
// SENDMEs): SENDME, EXTEND2, EXTENDED2, TRUNCATE, TRUNCATED, DROP.
// Same shape as relay_stream_msgs.hpp (kCommand, decode, encode).
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "conflux/bytes/reader.hpp"
#include "conflux/bytes/writer.hpp"
#include "conflux/cell/destroy_cell.hpp"
#include "conflux/cell/error.hpp"
#include "conflux/cell/relay_command.hpp"
#include "conflux/cell/relay_link_spec.hpp"

namespace conflux::cell {

inline constexpr std::size_t kSendmeTagLenTor1 = 20;  // running SHA-1 digest
inline constexpr std::size_t kSendmeTagLenCgo = 16;   // CGO (prop 359) tag

// The authenticated-SENDME tag: 20 bytes for tor1, 16 for CGO. Bytes past
// 'len' are zero so that == compares only meaningful content.
struct SendmeTag {
  std::array<std::uint8_t, kSendmeTagLenTor1> bytes{};
  std::uint8_t len = kSendmeTagLenTor1;

  [[nodiscard]] std::span<const std::uint8_t> view() const noexcept {
    return std::span<const std::uint8_t>(bytes).first(len);
  }
  friend bool operator==(const SendmeTag&, const SendmeTag&) = default;
};

// SENDME (tor-spec 7.3.1, prop 289):
//   empty body, or VERSION u8 | DATA_LEN u16 | DATA.
// Version 0 (or an empty body): no tag; whatever follows the version byte is
// ignored, as the spec says. Version 1: DATA_LEN must be 20 (tor1) or 16
// (CGO), as tor 0.4.9 requires, and DATA_LEN bytes must be present; bytes
// after them are ignored. Other versions: BadVersion.
// Encoding: v0 is the empty body (what tor emits); v1 is 01 | len | tag.
struct SendmeMsg {
  static constexpr RelayCommand kCommand = RelayCommand::Sendme;
  std::optional<SendmeTag> tag;  // nullopt = version 0

  static Decoded<SendmeMsg> decode(bytes::ByteSpan body);
  void encode(bytes::Writer& w) const;
  friend bool operator==(const SendmeMsg&, const SendmeMsg&) = default;
};

// EXTEND2 (tor-spec 5.1.2):
//   NSPEC u8 | NSPEC x link specifier | HTYPE u16 | HLEN u16 | HDATA[HLEN].
// Rejects truncation, wrong lengths for known specifier types, and more than
// one legacy or Ed25519 identity ("at most one may be listed"). Bytes after
// HDATA are ignored, as tor's parser ignores them.
struct Extend2Msg {
  static constexpr RelayCommand kCommand = RelayCommand::Extend2;
  std::vector<LinkSpec> link_specs;  // at most 255
  std::uint16_t handshake_type = 0;  // 2 = ntor, 3 = ntor-v3
  std::vector<std::uint8_t> handshake_data;

  static Decoded<Extend2Msg> decode(bytes::ByteSpan body);
  void encode(bytes::Writer& w) const;
  friend bool operator==(const Extend2Msg&, const Extend2Msg&) = default;
};

// EXTENDED2: HLEN u16 | HDATA[HLEN] (a CREATED2 body). Trailing bytes ignored.
struct Extended2Msg {
  static constexpr RelayCommand kCommand = RelayCommand::Extended2;
  std::vector<std::uint8_t> handshake_data;

  static Decoded<Extended2Msg> decode(bytes::ByteSpan body);
  void encode(bytes::Writer& w) const;
  friend bool operator==(const Extended2Msg&, const Extended2Msg&) = default;
};

// TRUNCATE: empty; any body is ignored.
struct TruncateMsg {
  static constexpr RelayCommand kCommand = RelayCommand::Truncate;
  static Decoded<TruncateMsg> decode(bytes::ByteSpan body);
  void encode(bytes::Writer& w) const;
  friend bool operator==(const TruncateMsg&, const TruncateMsg&) = default;
};

// TRUNCATED: reason u8, numbered like DESTROY reasons (tor-spec 5.4), so it
// reuses DestroyReason, which also holds unlisted values (they must be
// accepted). An empty body is Truncated; trailing bytes are ignored.
struct TruncatedMsg {
  static constexpr RelayCommand kCommand = RelayCommand::Truncated;
  DestroyReason reason = DestroyReason::None;

  static Decoded<TruncatedMsg> decode(bytes::ByteSpan body);
  void encode(bytes::Writer& w) const;
  friend bool operator==(const TruncatedMsg&, const TruncatedMsg&) = default;
};

// DROP: long-range padding; the receiver ignores the contents. They are kept
// so a sender can choose a body length and the encoding round-trips.
struct DropMsg {
  static constexpr RelayCommand kCommand = RelayCommand::Drop;
  std::vector<std::uint8_t> padding;

  static Decoded<DropMsg> decode(bytes::ByteSpan body);
  void encode(bytes::Writer& w) const;
  friend bool operator==(const DropMsg&, const DropMsg&) = default;
};

}  // namespace conflux::cell
