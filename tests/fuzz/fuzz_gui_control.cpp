// conflux-gui's reading of its proxy's ControlPort (common/control's
// ReplyReader, then gui/core's parsers): the bytes a
// broken or hostile proxy could send. Input: [split seed][bytes...]. Checks:
//  - ReplyReader in one piece and in pseudo-random pieces gives the same
//    replies and the same error;
//  - what comes out is no bigger than what went in, and every reply has
//    lines, a three-digit code, and is an event exactly when 650;
//  - every reply's lines, and GETINFO values of it, through each parser the
//    app applies to replies and events: a bootstrap phase's progress is
//    0..100; a CIRC event's status is one of its words; a bridge test has its
//    address; a descriptor notice's nickname and address are in the line; a
//    SOCKS listener is no longer than the text it came from.
#include <cstdint>
#include <string>
#include <vector>

#include "conflux/gui/status_parsing.hpp"
#include "reply_reader_runs.hpp"

namespace {

using namespace conflux::control;
using namespace conflux::fuzz;
using namespace conflux::gui;

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
  const ReplyRun whole = read_replies_both_ways(data, size);
  std::size_t out_bytes = 0;
  for (const auto& reply : whole.replies) {
    out_bytes += checked_reply_bytes(reply);
    for (const auto& line : reply.lines) {
      parse_text(line.text);
      parse_text(line.data);
    }
    for (const char* key : {"status/bootstrap-phase", "conflux/sets", "circuit-status", "net/listeners/socks"})
      parse_text(getinfo_value(reply, key));
  }
  check(out_bytes <= bytes.size());
  return 0;
}
