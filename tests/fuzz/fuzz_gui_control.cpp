// conflux-gui's reading of its proxy's ControlPort (gui/core): the bytes a
// broken or hostile proxy could send. Input: [split seed][bytes...]. Checks:
//  - ReplyReader in one piece and in pseudo-random pieces gives the same
//    replies and the same error;
//  - what comes out is no bigger than what went in, and every line of a
//    reply has its code (a three-digit number);
//  - every reply's lines, and GETINFO values of it, through each parser the
//    app applies to replies and events: a bootstrap phase's progress is
//    0..100; a CIRC event's status is one of its words; a bridge test has its
//    address; a descriptor notice's nickname and address are in the line; a
//    SOCKS listener is no longer than the text it came from.
#include <cstdint>
#include <string>
#include <vector>

#include "conflux/gui/reply_reader.hpp"
#include "conflux/gui/status_parsing.hpp"

namespace {

using namespace conflux::gui;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

struct Outcome {
  std::vector<ControlReplyMsg> replies;
  std::string error;
};

bool same(const Outcome& a, const Outcome& b) {
  if (a.error != b.error || a.replies.size() != b.replies.size()) return false;
  for (std::size_t i = 0; i < a.replies.size(); ++i) {
    const auto& x = a.replies[i];
    const auto& y = b.replies[i];
    if (x.code != y.code || x.lines.size() != y.lines.size()) return false;
    for (std::size_t j = 0; j < x.lines.size(); ++j)
      if (x.lines[j].text != y.lines[j].text || x.lines[j].data != y.lines[j].data) return false;
  }
  return true;
}

Outcome read(std::string_view bytes, std::uint8_t seed) {
  ReplyReader r;
  Outcome out;
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

void parse_text(std::string_view text) {
  if (auto p = parse_bootstrap_phase(text)) check(p->progress >= 0 && p->progress <= 100);
  if (auto c = parse_circ_event(text)) check(!c->status.empty() && text.find(c->status) != std::string_view::npos);
  if (auto t = parse_bridge_test_event(text)) check(!t->address.empty());
  if (auto n = parse_bridge_descriptor_notice(text))
    check(!n->first.empty() && !n->second.empty() && text.find(n->first) != std::string_view::npos &&
          text.find(n->second) != std::string_view::npos);
  (void)parse_conflux_leg_event(text);
  (void)parse_bw_event(text);
  (void)parse_conflux_sets(text);
  (void)parse_circuit_paths(text);
  check(first_socks_listener(text).size() <= text.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Outcome whole = read(bytes, 0);
  check(same(whole, read(bytes, data[0] | 1)));
  std::size_t out_bytes = 0;
  for (const auto& reply : whole.replies) {
    check(reply.code >= 0 && reply.code <= 999 && !reply.lines.empty());
    for (const auto& line : reply.lines) {
      out_bytes += line.text.size() + line.data.size();
      parse_text(line.text);
      parse_text(line.data);
    }
    for (const char* key : {"status/bootstrap-phase", "conflux/sets", "circuit-status", "net/listeners/socks"})
      parse_text(getinfo_value(reply, key));
  }
  check(out_bytes <= bytes.size());
  return 0;
}
