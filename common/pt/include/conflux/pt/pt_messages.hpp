#pragma once
// What a managed transport says on its stdout (pt-spec 3.3): one message a
// line, keyword first. The launcher reads them with PtMessages, which keeps
// the protocol's order (VERSION first, then methods, then DONE) and bounds:
// a line longer than kMaxPtLine, or a message out of order, is a protocol
// error that ends the transport (the caller kills it and says why). Unknown
// keywords are ignored, as pt-spec asks. LOG and STATUS use control-spec's
// Key=Value arguments with QuotedStrings.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace conflux::pt {

inline constexpr std::size_t kMaxPtLine = 4096;

enum class PtMode : std::uint8_t { Client, Server };

struct PtVersion {};  // VERSION 1 accepted
struct PtMethod {     // CMETHOD name socks5 addr:port | SMETHOD name addr:port [ARGS:k=v,...]
  std::string transport;
  std::string protocol;  // client: "socks4" or "socks5"; server: empty
  std::string host;      // an IPv4 or IPv6 address, without brackets
  std::uint16_t port = 0;
  std::string args;      // server: the ARGS: option, as the bridge line's arguments
  friend bool operator==(const PtMethod&, const PtMethod&) = default;
};
struct PtMethodError {
  std::string transport;
  std::string message;
};
struct PtDone {};  // CMETHODS DONE / SMETHODS DONE
struct PtProxy {   // PROXY DONE / PROXY-ERROR
  bool ok = false;
  std::string message;
};
struct PtLog {
  std::string severity;  // error, warning, notice, info, debug
  std::string message;
};
struct PtStatus {
  std::map<std::string, std::string> fields;  // TRANSPORT=... and the rest
};
struct PtIgnored {};  // an unknown keyword

using PtMessage = std::variant<PtVersion, PtMethod, PtMethodError, PtDone, PtProxy, PtLog, PtStatus, PtIgnored>;

// A protocol error: the transport cannot be used.
struct PtError {
  std::string message;
};

// What a feed read: the messages of the lines it completed, then the error
// that ends the transport if one came after them (nothing more is read).
struct PtRead {
  std::vector<PtMessage> messages;
  std::optional<PtError> error;
};

class PtMessages {
 public:
  // `transports`: the ones asked for (TOR_PT_CLIENT_TRANSPORTS or
  // TOR_PT_SERVER_TRANSPORTS); a method for another one is an error.
  PtMessages(PtMode mode, std::set<std::string> transports) : mode_(mode), transports_(std::move(transports)) {}

  [[nodiscard]] PtRead feed(std::span<const std::uint8_t> bytes);

  [[nodiscard]] bool done() const noexcept { return done_; }
  [[nodiscard]] const std::vector<PtMethod>& methods() const noexcept { return methods_; }

 private:
  [[nodiscard]] std::variant<PtMessage, PtError> line(std::string_view text);
  [[nodiscard]] std::variant<PtMessage, PtError> method(std::string_view keyword, std::string_view args);

  PtMode mode_;
  std::set<std::string> transports_;
  std::string buffer_;
  bool version_ = false;
  bool done_ = false;
  bool failed_ = false;
  std::vector<PtMethod> methods_;
};

// "127.0.0.1:43210" or "[::1]:43210" -> host and port (1..65535).
[[nodiscard]] std::optional<std::pair<std::string, std::uint16_t>> parse_pt_address(std::string_view text);

}  // namespace conflux::pt
