// A controller's reading of a control port's replies (common/control
// ReplyReader: conflux-gui's proxy, conflux-net's stock tor relays), alone:
// the bytes a broken or hostile control port could send. Input: [split
// seed][bytes...]. Checks:
//  - in one piece and in pseudo-random pieces: the same replies, the same error;
//  - no more bytes come out than went in; every reply has lines and a
//    three-digit code, is an event exactly when its code is 650, and no line's
//    text holds a newline;
//  - once the reader has failed it reads nothing more;
//  - a GETINFO value is part of the reply it came from.
#include <cstdint>
#include <string>
#include <string_view>

#include "reply_reader_runs.hpp"

using namespace conflux::control;
using namespace conflux::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const ReplyRun whole = read_replies_both_ways(data, size);
  std::size_t out_bytes = 0;
  for (const auto& reply : whole.replies) {
    const std::size_t reply_bytes = checked_reply_bytes(reply);
    out_bytes += reply_bytes;
    // The first line's key ("key=value" or "key="), as a controller asks for it.
    const auto& first = reply.lines.front().text;
    check(getinfo_value(reply, first.substr(0, first.find('='))).size() <= reply_bytes);
  }
  check(out_bytes <= bytes.size());
  if (!whole.error.empty()) {
    ReplyReader r;
    (void)r.feed(bytes);
    check(!r.ok() && r.feed("250 OK\r\n").empty());
  }
  return 0;
}
