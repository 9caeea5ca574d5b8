#pragma once
// Commands as a controller sends them (control-spec 2.2 and 2.4): one line
// each, ended by CRLF (a bare LF too, as tor accepts), the keyword first. A
// keyword that starts with '+' is followed by data lines up to a line that
// is a single ".", with a leading "." of a data line doubled by the sender.
//
// Bounded like every queue: a line longer than max_line, data longer than
// max_data, or more than max_pending bytes waiting for their line ends the
// connection (the caller answers and closes; tor closes too).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>


namespace conflux::control {

struct ControlCommand {
  std::string keyword;              // upper case, without the '+'
  std::string args;                 // the rest of the first line, without the separating space
  std::optional<std::string> data;  // a '+' command's data, lines joined with "\n", dots unstuffed

  friend bool operator==(const ControlCommand&, const ControlCommand&) = default;
};

enum class ControlReadError : std::uint8_t {
  LineTooLong,
  DataTooLong,
  BadKeyword,  // empty, or not letters, digits, '_' and '-'
};
[[nodiscard]] std::string_view to_string(ControlReadError e) noexcept;

struct ControlReaderLimits {
  std::size_t max_line = 16 * 1024;    // tor's MAX_COMMAND_LINE_LENGTH is larger; our commands are short
  std::size_t max_data = 1024 * 1024;  // a LOADCONF torrc, say
};

// What a feed completed: the commands, in order, then the error that ends
// the connection if one came after them (nothing after it is read).
struct ControlRead {
  std::vector<ControlCommand> commands;
  std::optional<ControlReadError> error;
};

class ControlReader {
 public:
  explicit ControlReader(ControlReaderLimits limits = {}) noexcept : limits_(limits) {}

  [[nodiscard]] ControlRead feed(std::span<const std::uint8_t> bytes);

  // Bytes held for an incomplete line or command (at most max_line + max_data).
  [[nodiscard]] std::size_t buffered() const noexcept { return line_.size() + (pending_ ? pending_->data->size() : 0); }

 private:
  [[nodiscard]] std::optional<ControlReadError> take_line(std::vector<ControlCommand>& out);

  ControlReaderLimits limits_;
  std::string line_;
  std::optional<ControlCommand> pending_;  // a '+' command still reading data
  std::size_t data_lines_ = 0;
  bool failed_ = false;
};

}  // namespace conflux::control
