#pragma once
// The controller's side of control-spec's replies (section 2.3): bytes from
// the control port in, whole replies out. A reply is "CODE-text" and
// "CODE+text" lines (the latter followed by data lines up to ".", dot-unstuffed)
// ended by "CODE text". Code 650 is an asynchronous event. What a control
// port sends is hostile input to its controller (conflux-gui, and conflux-net
// asking a stock tor relay): every line and data block is bounded, and the
// first malformed line ends the stream.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace conflux::control {

struct ReplyLine {
  std::string text;  // after "CODE" and its separator
  std::string data;  // the data block of a "CODE+" line, lines joined with '\n'
  bool operator==(const ReplyLine&) const = default;
};

struct ControlReplyMsg {
  int code = 0;
  std::vector<ReplyLine> lines;  // the last one is the "CODE text" line
  [[nodiscard]] bool ok() const noexcept { return code == 250; }
  [[nodiscard]] bool is_event() const noexcept { return code == 650; }
  // The final line's text ("OK", or the error's words).
  [[nodiscard]] std::string status_text() const { return lines.empty() ? std::string() : lines.back().text; }
  bool operator==(const ControlReplyMsg&) const = default;
};

class ReplyReader {
 public:
  static constexpr std::size_t kMaxBuffered = 1u << 20;      // a line or data block longer ends the connection
  static constexpr std::size_t kMaxLinesPerReply = 100000;

  // The replies completed by `bytes`; false in `ok` once the stream is broken
  // (a malformed line or over a bound): the connection should be closed.
  std::vector<ControlReplyMsg> feed(std::string_view bytes);
  [[nodiscard]] bool ok() const noexcept { return error_.empty(); }
  [[nodiscard]] const std::string& error() const noexcept { return error_; }

 private:
  void take_line(std::string line, std::vector<ControlReplyMsg>& out);
  std::string buffer_;
  ControlReplyMsg current_;
  bool in_data_ = false;
  std::size_t data_bytes_ = 0;
  std::string error_;
};

// A GETINFO reply's value for `key` ("key=value" lines, or a "key=" line's
// data block); "" when the reply has none.
[[nodiscard]] std::string getinfo_value(const ControlReplyMsg& reply, std::string_view key);

}  // namespace conflux::control
