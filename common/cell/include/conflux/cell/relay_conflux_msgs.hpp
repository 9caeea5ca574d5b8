#pragma once
// Conflux linking and switching messages (prop 329; tor's conflux.trunnel;
// tor-reference.md 1.2). All travel with stream ID 0.
#include <array>
#include <cstdint>

#include "conflux/bytes/reader.hpp"
#include "conflux/bytes/strong_int.hpp"
#include "conflux/bytes/writer.hpp"
#include "conflux/cell/error.hpp"
#include "conflux/cell/relay_command.hpp"

namespace conflux::cell {

inline constexpr std::uint8_t kConfluxLinkVersion = 1;
inline constexpr std::size_t kConfluxNonceLen = 32;
inline constexpr std::size_t kConfluxLinkBodyLen = 50;

// The sender's preferred scheduling for traffic towards it.
enum class ConfluxUx : std::uint8_t {
  NoOpinion = 0,
  MinLatency = 1,
  LowMemLatency = 2,
  HighThroughput = 3,
  LowMemThroughput = 4,
};

// The shared body of LINK and LINKED:
//   version u8 (= 1) | nonce[32] | last_seqno_sent u64 | last_seqno_recv u64 |
//   desired_ux u8 (0..4)
// Decoding rejects version != 1 (BadVersion) and UX > 4 (BadValue). tor
// ignores the bytes after the first 50; we put our own extensions there,
// shaped like ntor-v3's list (docs/CONFLUX.md "Exits of ours and tor's"):
//   N_EXT u8, then N_EXT times { type u8, len u8, body[len] }
// Type 1 (empty body): the sender resends what a dead leg lost and takes a
// LINK again on a live leg (prop 329 2.7; tor does neither). Unknown types
// are skipped; a list that does not parse counts as no list, as tor
// ignores those bytes. Encoding writes exactly 50 bytes, plus the list
// when there is something in it.
inline constexpr std::uint8_t kConfluxExtResumption = 1;

struct ConfluxLinkFields {
  std::array<std::uint8_t, kConfluxNonceLen> nonce{};  // secret: never log it
  SeqAbs last_seqno_sent{};
  SeqAbs last_seqno_recv{};
  ConfluxUx desired_ux = ConfluxUx::NoOpinion;
  bool offers_resumption = false;  // extension type 1
  friend bool operator==(const ConfluxLinkFields&, const ConfluxLinkFields&) = default;
};

Decoded<ConfluxLinkFields> decode_conflux_link_fields(bytes::ByteSpan body);
void encode_conflux_link_fields(bytes::Writer& w, const ConfluxLinkFields& f);

// CONFLUX_LINK (19), client to exit.
struct ConfluxLinkMsg : ConfluxLinkFields {
  static constexpr RelayCommand kCommand = RelayCommand::ConfluxLink;
  static Decoded<ConfluxLinkMsg> decode(bytes::ByteSpan body);
  void encode(bytes::Writer& w) const { encode_conflux_link_fields(w, *this); }
  friend bool operator==(const ConfluxLinkMsg&, const ConfluxLinkMsg&) = default;
};

// CONFLUX_LINKED (20), exit to client: same body as LINK.
struct ConfluxLinkedMsg : ConfluxLinkFields {
  static constexpr RelayCommand kCommand = RelayCommand::ConfluxLinked;
  static Decoded<ConfluxLinkedMsg> decode(bytes::ByteSpan body);
  void encode(bytes::Writer& w) const { encode_conflux_link_fields(w, *this); }
  friend bool operator==(const ConfluxLinkedMsg&, const ConfluxLinkedMsg&) = default;
};

// CONFLUX_LINKED_ACK (21), client to exit: empty; any body is ignored.
struct ConfluxLinkedAckMsg {
  static constexpr RelayCommand kCommand = RelayCommand::ConfluxLinkedAck;
  static Decoded<ConfluxLinkedAckMsg> decode(bytes::ByteSpan body);
  void encode(bytes::Writer& w) const;
  friend bool operator==(const ConfluxLinkedAckMsg&, const ConfluxLinkedAckMsg&) = default;
};

// CONFLUX_SWITCH (22): relative sequence number u32. Every tor 0.4.8 sends
// Length = 498 (the number then 494 zero bytes), so any body of 4..498 bytes
// is accepted and only the first 4 are read. The encoder writes 4 bytes.
struct ConfluxSwitchMsg {
  static constexpr RelayCommand kCommand = RelayCommand::ConfluxSwitch;
  SeqRel relative_seq{};

  static Decoded<ConfluxSwitchMsg> decode(bytes::ByteSpan body);
  void encode(bytes::Writer& w) const;
  friend bool operator==(const ConfluxSwitchMsg&, const ConfluxSwitchMsg&) = default;
};

}  // namespace conflux::cell
