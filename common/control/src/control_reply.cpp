#include "conflux/control/control_reply.hpp"

namespace conflux::control {

namespace {

void put_line(std::string& out, int code, char sep, std::string_view text) {
  out += std::to_string(code);
  out.push_back(sep);
  // A value echoed in a message (a bad SETCONF value may hold "\n") never
  // breaks the line.
  for (char c : text) out.push_back(c == '\r' || c == '\n' ? ' ' : c);
  out += "\r\n";
}

}  // namespace

ControlReply& ControlReply::mid(int code, std::string_view text) {
  put_line(out_, code, '-', text);
  return *this;
}

ControlReply& ControlReply::data(int code, std::string_view key, std::string_view body) {
  return block(code, std::string(key) + "=", body);
}

ControlReply& ControlReply::block(int code, std::string_view head, std::string_view body) {
  put_line(out_, code, '+', head);
  std::size_t at = 0;
  while (at < body.size()) {
    auto nl = body.find('\n', at);
    if (nl == std::string_view::npos) nl = body.size();
    std::string_view line = body.substr(at, nl - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.starts_with('.')) out_.push_back('.');
    out_.append(line);
    out_ += "\r\n";
    at = nl + 1;
  }
  out_ += ".\r\n";
  return *this;
}

std::string ControlReply::end(int code, std::string_view text) {
  put_line(out_, code, ' ', text);
  return std::move(out_);
}

std::string control_line(int code, std::string_view text) { return ControlReply().end(code, text); }

}  // namespace conflux::control
