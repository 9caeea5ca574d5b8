#pragma once
// ReplyReader (common/control) over a fuzz input, in one piece or in
// pseudo-random pieces, for the targets that read a control port's replies
// (fuzz_control_replies, fuzz_gui_control): both must give the same replies
// and the same error.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/control/reply_reader.hpp"

namespace conflux::fuzz {

struct ReplyRun {
  std::vector<control::ControlReplyMsg> replies;
  std::string error;
};

inline bool same(const ReplyRun& a, const ReplyRun& b) { return a.error == b.error && a.replies == b.replies; }

// seed 0: one feed; otherwise pieces of 1 to 16 bytes drawn from `seed`.
inline ReplyRun read_replies(std::string_view bytes, std::uint8_t seed) {
  control::ReplyReader r;
  ReplyRun out;
  std::uint32_t lcg = seed;
  while (!bytes.empty() && r.ok()) {
    std::size_t n = bytes.size();
    if (seed != 0) {
      lcg = lcg * 1103515245u + 12345u;
      n = std::min<std::size_t>(n, 1 + (lcg >> 16) % 16);
    }
    auto got = r.feed(bytes.substr(0, n));
    bytes.remove_prefix(n);
    out.replies.insert(out.replies.end(), got.begin(), got.end());
  }
  out.error = r.error();
  return out;
}

inline void check(bool ok) {
  if (!ok) __builtin_trap();
}

// The input as [split seed][bytes...]: the replies of the bytes in one piece,
// once pieces drawn from the seed were checked to give the same.
inline ReplyRun read_replies_both_ways(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  ReplyRun whole = read_replies(bytes, 0);
  check(same(whole, read_replies(bytes, data[0] | 1)));
  return whole;
}

// A reply as the reader must give it: lines, a three-digit code, an event
// exactly when the code is 650, no newline in a line's text. Its bytes.
inline std::size_t checked_reply_bytes(const control::ControlReplyMsg& reply) {
  check(reply.code >= 0 && reply.code <= 999 && !reply.lines.empty());
  check(reply.is_event() == (reply.code == 650));
  std::size_t n = 0;
  for (const auto& line : reply.lines) {
    check(line.text.find('\n') == std::string::npos);
    n += line.text.size() + line.data.size();
  }
  return n;
}

}  // namespace conflux::fuzz
