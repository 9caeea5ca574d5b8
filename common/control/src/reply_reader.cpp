#include "conflux/control/reply_reader.hpp"

#include <cctype>

namespace conflux::control {

std::vector<ControlReplyMsg> ReplyReader::feed(std::string_view bytes) {
  std::vector<ControlReplyMsg> out;
  if (!ok()) return out;
  buffer_.append(bytes);
  std::size_t start = 0;
  for (;;) {
    const auto nl = buffer_.find('\n', start);
    if (nl == std::string::npos) break;
    std::string line = buffer_.substr(start, nl - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    start = nl + 1;
    take_line(std::move(line), out);
    if (!ok()) return out;
  }
  buffer_.erase(0, start);
  if (buffer_.size() > kMaxBuffered) error_ = "a reply line over 1 MiB";
  return out;
}

void ReplyReader::take_line(std::string line, std::vector<ControlReplyMsg>& out) {
  if (in_data_) {
    if (line == ".") {
      in_data_ = false;
      return;
    }
    if (line.starts_with("..")) line.erase(0, 1);
    auto& data = current_.lines.back().data;
    data_bytes_ += line.size() + 1;
    if (data_bytes_ > kMaxBuffered) {
      error_ = "a data block over 1 MiB";
      return;
    }
    if (!data.empty()) data += '\n';
    data += line;
    return;
  }
  if (line.size() < 4 || !std::isdigit(static_cast<unsigned char>(line[0])) ||
      !std::isdigit(static_cast<unsigned char>(line[1])) || !std::isdigit(static_cast<unsigned char>(line[2])) ||
      (line[3] != ' ' && line[3] != '-' && line[3] != '+')) {
    error_ = "a malformed reply line";
    return;
  }
  const int code = std::stoi(line.substr(0, 3));
  if (!current_.lines.empty() && code != current_.code) {
    error_ = "a reply whose lines change code";
    return;
  }
  current_.code = code;
  if (current_.lines.size() >= kMaxLinesPerReply) {
    error_ = "a reply with too many lines";
    return;
  }
  current_.lines.push_back(ReplyLine{line.substr(4), {}});
  if (line[3] == '+') {
    in_data_ = true;
    data_bytes_ = 0;
  } else if (line[3] == ' ') {
    out.push_back(std::move(current_));
    current_ = {};
  }
}

std::string getinfo_value(const ControlReplyMsg& reply, std::string_view key) {
  const std::string prefix = std::string(key) + "=";
  for (const auto& l : reply.lines)
    if (l.text.starts_with(prefix)) return l.data.empty() ? l.text.substr(prefix.size()) : l.data;
  return {};
}

}  // namespace conflux::control
