// Fuzzes the reader of the lines an authority of ours lists from a tor
// server descriptor a stock relay uploaded (POST /tor/: hostile input):
// "bandwidth", "or-address", "accept"/"reject", "family". The descriptor fuzzer rarely
// gets past the signatures to these lines, so they are fed here directly.
// Seeds: those lines of descriptors a stock tor 0.4.9 network served.
//
// Invariants (trap on violation):
//  - an accepted input gives an exit policy summary our own consensus
//    parser accepts, and bandwidths at most 2^40;
//  - an IPv6 address is found only when some "or-address" line has a
//    bracketed address (a tab may part keyword and argument, as in tor);
//  - family members only with a "family" line and a '$', strictly
//    ascending (so each once), at most kMaxFamily;
//  - reading the same input twice gives the same facts.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "conflux/dir/fields.hpp"
#include "conflux/dir/tor_relay_facts.hpp"

using namespace conflux;
using namespace conflux::dir;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  // The first two bytes choose the ORPort.
  const auto or_port = static_cast<std::uint16_t>(data[0] << 8 | data[1]);
  const std::string_view in(reinterpret_cast<const char*>(data + 2), size - 2);
  auto f = parse_tor_relay_facts(in, or_port);
  if (!f) return 0;
  if (!parse_policy_summary(f->exit_policy)) __builtin_trap();
  if (f->bandwidth_rate > kMaxBandwidth || f->bandwidth_burst > kMaxBandwidth ||
      f->bandwidth_observed > kMaxBandwidth)
    __builtin_trap();
  if (f->ipv6 && (in.find("or-address") == std::string_view::npos ||
                  in.find('[') == std::string_view::npos))
    __builtin_trap();
  if (!f->family.empty() &&
      (in.find("family") == std::string_view::npos || in.find('$') == std::string_view::npos))
    __builtin_trap();
  if (f->family.size() > kMaxFamily ||
      std::adjacent_find(f->family.begin(), f->family.end(), [](const auto& a, const auto& b) { return !(a < b); }) !=
          f->family.end())
    __builtin_trap();
  auto again = parse_tor_relay_facts(in, or_port);
  if (!again || !(*again == *f)) __builtin_trap();
  return 0;
}
