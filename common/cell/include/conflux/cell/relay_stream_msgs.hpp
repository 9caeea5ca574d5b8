#pragma once
// Relay message bodies for streams (tor-spec 6.2-6.4): BEGIN, BEGIN_DIR,
// CONNECTED, DATA, END, RESOLVE, RESOLVED.
//
// Every message type has the same shape so RelayMsg can dispatch generically:
//   static constexpr RelayCommand kCommand;
//   static Decoded<T> decode(ByteSpan body);   // the relay body only
//   void encode(bytes::Writer&) const;          // canonical body
// Encoders assume a valid message (as a decoder would produce it); the relay
// header encoder rejects bodies over 498 bytes.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "conflux/bytes/reader.hpp"
#include "conflux/bytes/writer.hpp"
#include "conflux/cell/error.hpp"
#include "conflux/cell/relay_addr.hpp"
#include "conflux/cell/relay_command.hpp"

namespace conflux::cell {

// BEGIN FLAGS bits; "bit 1" of the spec is the least significant bit.
inline constexpr std::uint32_t kBeginFlagIpv6Ok = 1u << 0;
inline constexpr std::uint32_t kBeginFlagIpv4NotOk = 1u << 1;
inline constexpr std::uint32_t kBeginFlagIpv6Preferred = 1u << 2;

enum class BeginAddrKind : std::uint8_t { Hostname, Ipv4, Ipv6 };

// BEGIN: ADDRPORT "host:port" NUL-terminated, then an optional FLAGS u32.
//
// Decoding: host is a DNS name (printable ASCII without ':' '[' ']'), an IPv4
// dotted quad, or an IPv6 address in brackets; port is decimal 1..65535
// without leading zeros or sign. The host is kept as sent (case included) so
// the encoding round-trips; IPv6 is stored without its brackets. An empty host
// is accepted: tor clients send ":port" on onion-service circuits, and the exit
// layer must refuse it. FLAGS is read when at least 4 bytes follow the NUL;
// 1-3 stray bytes and anything after FLAGS are ignored, as tor does.
// Encoding writes FLAGS only when nonzero, as tor does.
struct BeginMsg {
  static constexpr RelayCommand kCommand = RelayCommand::Begin;
  std::string host;
  BeginAddrKind kind = BeginAddrKind::Hostname;
  std::uint16_t port = 0;
  std::uint32_t flags = 0;

  static Decoded<BeginMsg> decode(bytes::ByteSpan body);
  void encode(bytes::Writer& w) const;
  friend bool operator==(const BeginMsg&, const BeginMsg&) = default;
};

// BEGIN_DIR: empty. Relays MUST ignore the body (tor-spec 6.2.1), so any body
// decodes; the encoder writes nothing.
struct BeginDirMsg {
  static constexpr RelayCommand kCommand = RelayCommand::BeginDir;
  static Decoded<BeginDirMsg> decode(bytes::ByteSpan body);
  void encode(bytes::Writer& w) const;
  friend bool operator==(const BeginDirMsg&, const BeginDirMsg&) = default;
};

// CONNECTED: empty (BEGIN_DIR, onion services), or IPv4[4] TTL[4], or
// 00000000 06 IPv6[16] TTL[4]. Bytes after a complete form are ignored (tor
// ignores them). Unlike tor we reject the 4..7-byte "IPv4 without TTL" form,
// which no implementation sends.
struct ConnectedMsg {
  static constexpr RelayCommand kCommand = RelayCommand::Connected;
  std::optional<RelayAddrTtl> addr;

  static Decoded<ConnectedMsg> decode(bytes::ByteSpan body);
  void encode(bytes::Writer& w) const;
  friend bool operator==(const ConnectedMsg&, const ConnectedMsg&) = default;
};

// DATA: 1..498 bytes of stream data. An empty DATA is rejected (BadLength):
// it carries nothing yet would consume a flow-control window slot (a free way
// to drive SENDME state), and tor-reference notes tor calls it a protocol
// error. Callers must not encode one.
struct DataMsg {
  static constexpr RelayCommand kCommand = RelayCommand::Data;
  std::vector<std::uint8_t> data;

  static Decoded<DataMsg> decode(bytes::ByteSpan body);
  void encode(bytes::Writer& w) const;
  friend bool operator==(const DataMsg&, const DataMsg&) = default;
};

// END reasons (tor-spec 6.3). Receivers MUST accept values not listed, so the
// enum may hold any byte.
enum class EndReason : std::uint8_t {
  Misc = 1,
  ResolveFailed = 2,
  ConnectRefused = 3,
  ExitPolicy = 4,
  Destroy = 5,
  Done = 6,
  Timeout = 7,
  NoRoute = 8,
  Hibernating = 9,
  Internal = 10,
  ResourceLimit = 11,
  ConnReset = 12,
  TorProtocol = 13,
  NotDirectory = 14,
};

// END: reason u8; an empty body means MISC. With EXITPOLICY the reason may be
// followed by IPv4[4] or IPv6[16] and TTL[4]; a missing TTL reads as
// 0xffffffff, and an address of any other length is ignored (the END is still
// processed, tor-spec 6.3). Other reasons: trailing bytes ignored.
// The encoder writes the address (with TTL) only for EXITPOLICY.
struct EndMsg {
  static constexpr RelayCommand kCommand = RelayCommand::End;
  EndReason reason = EndReason::Misc;
  std::optional<RelayAddrTtl> exit_policy_addr;

  static Decoded<EndMsg> decode(bytes::ByteSpan body);
  void encode(bytes::Writer& w) const;
  friend bool operator==(const EndMsg&, const EndMsg&) = default;
};

// RESOLVE: a hostname, or a reverse-lookup name such as
// "4.3.2.1.in-addr.arpa", NUL-terminated. Rejects a missing NUL, an empty
// name, and bytes outside printable ASCII; bytes after the NUL are ignored.
struct ResolveMsg {
  static constexpr RelayCommand kCommand = RelayCommand::Resolve;
  std::string name;

  static Decoded<ResolveMsg> decode(bytes::ByteSpan body);
  void encode(bytes::Writer& w) const;
  friend bool operator==(const ResolveMsg&, const ResolveMsg&) = default;
};

// True for "...in-addr.arpa" / "...ip6.arpa" names (any case).
[[nodiscard]] bool is_reverse_lookup_name(std::string_view name) noexcept;

enum class ResolvedType : std::uint8_t {
  Hostname = 0x00,
  Ipv4 = 0x04,
  Ipv6 = 0x06,
  ErrorTransient = 0xF0,
  ErrorNontransient = 0xF1,
};

// One RESOLVED answer. The value is kept raw: an IPv4 (4 bytes) or IPv6 (16
// bytes) address, a hostname (not NUL-terminated, non-empty), or error text
// that receivers must ignore. Unknown types are kept opaque, as tor skips them.
struct ResolvedAnswer {
  ResolvedType type = ResolvedType::Hostname;
  std::vector<std::uint8_t> value;  // at most 255 bytes
  std::uint32_t ttl = 0;
  friend bool operator==(const ResolvedAnswer&, const ResolvedAnswer&) = default;
};

// RESOLVED: a list of {type u8, len u8, value, TTL u32}. Rejects a truncated
// answer and wrong lengths (IPv4 != 4, IPv6 != 16, empty hostname). The
// spec's "an error excludes other answers" and "IPv4 first" are sender rules
// tor does not check on receipt; neither do we.
struct ResolvedMsg {
  static constexpr RelayCommand kCommand = RelayCommand::Resolved;
  std::vector<ResolvedAnswer> answers;

  static Decoded<ResolvedMsg> decode(bytes::ByteSpan body);
  void encode(bytes::Writer& w) const;
  friend bool operator==(const ResolvedMsg&, const ResolvedMsg&) = default;
};

}  // namespace conflux::cell
