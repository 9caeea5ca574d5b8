#pragma once
// Replies as control-spec 2.3 writes them, CRLF after every line: all lines
// but the last "CODE-text", or "CODE+key=" followed by data lines (a line
// that starts with "." gets another in front) and a line ".", and the last
// line "CODE text". Async events are the same with code 650.
#include <string>
#include <string_view>

namespace conflux::control {

class ControlReply {
 public:
  ControlReply& mid(int code, std::string_view text);
  ControlReply& data(int code, std::string_view key, std::string_view body);
  // "CODE+head" and the data lines: a multi-line event ("650+NEWCONSENSUS").
  ControlReply& block(int code, std::string_view head, std::string_view body);
  // The whole reply, ended by its last line.
  [[nodiscard]] std::string end(int code, std::string_view text);

 private:
  std::string out_;
};

// A one-line reply.
[[nodiscard]] std::string control_line(int code, std::string_view text);

}  // namespace conflux::control
