// Fuzzes the parsers of the directory's text fields (fields.hpp), which the
// tor documents' parsers call on hostile input: the exit policy summary
// (a microdescriptor's "p", a consensus's "p"), protocol versions ("pr",
// "proto"), nicknames and addresses.
//
// Invariants (trap on violation):
//  - an accepted summary round-trips through its formatter to the same text;
//  - a protocol list that is valid answers protocols_support without
//    crashing, and an accepted address formats back to the same text (the
//    parsers accept only the form the formatters write).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "conflux/dir/fields.hpp"

using namespace conflux;
using namespace conflux::dir;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  auto p = parse_policy_summary(in);
  if (p && format_policy_summary(*p) != in) __builtin_trap();
  if (valid_protocols(in)) (void)protocols_support(in, "Conflux", 1);
  (void)valid_nickname(in);
  if (auto a = parse_ipv4(in); a && format_ipv4(*a) != in) __builtin_trap();
  if (auto a = parse_ipv6(in); a && format_ipv6(*a) != in) __builtin_trap();
  return 0;
}
