#include "conflux/control/control_reader.hpp"

#include <algorithm>
#include <cctype>

namespace conflux::control {

std::string_view to_string(ControlReadError e) noexcept {
  switch (e) {
    case ControlReadError::LineTooLong: return "line too long";
    case ControlReadError::DataTooLong: return "command data too long";
    case ControlReadError::BadKeyword: return "not a command keyword";
  }
  return "unknown control read error";
}

namespace {

bool keyword_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
}

}  // namespace

std::optional<ControlReadError> ControlReader::take_line(std::vector<ControlCommand>& out) {
  std::string line = std::move(line_);
  line_.clear();
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (pending_) {
    if (line == ".") {
      out.push_back(std::move(*pending_));
      pending_.reset();
      return std::nullopt;
    }
    std::string_view text = line;
    if (text.starts_with('.')) text.remove_prefix(1);  // "..x" was "." stuffed before ".x"
    std::string& data = *pending_->data;
    if (data.size() + text.size() + 1 > limits_.max_data) return ControlReadError::DataTooLong;
    if (data_lines_++ > 0) data.push_back('\n');
    data.append(text);
    return std::nullopt;
  }
  std::string_view text = line;
  const bool multi = text.starts_with('+');
  if (multi) text.remove_prefix(1);
  const auto space = text.find(' ');
  const std::string_view keyword = text.substr(0, space);
  if (keyword.empty() || !std::all_of(keyword.begin(), keyword.end(), keyword_char)) return ControlReadError::BadKeyword;
  ControlCommand cmd;
  cmd.keyword.resize(keyword.size());
  std::transform(keyword.begin(), keyword.end(), cmd.keyword.begin(),
                 [](char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); });
  if (space != std::string_view::npos) cmd.args = std::string(text.substr(space + 1));
  if (multi) {
    cmd.data.emplace();
    data_lines_ = 0;
    pending_ = std::move(cmd);
  } else {
    out.push_back(std::move(cmd));
  }
  return std::nullopt;
}

ControlRead ControlReader::feed(std::span<const std::uint8_t> bytes) {
  ControlRead out;
  if (failed_) return out;
  for (const std::uint8_t b : bytes) {
    if (b == '\n') {
      out.error = take_line(out.commands);
    } else if (line_.size() >= limits_.max_line) {
      out.error = ControlReadError::LineTooLong;
    } else {
      line_.push_back(static_cast<char>(b));
    }
    if (out.error) {
      failed_ = true;
      line_.clear();
      pending_.reset();
      break;
    }
  }
  return out;
}

}  // namespace conflux::control
