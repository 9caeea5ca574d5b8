#pragma once
// tor's configuration layers, lowest priority first: the defaults file
// (--defaults-torrc), the torrc (-f), the command line (--Key value).
// For each key, the lines of the highest layer that mentions it replace every
// line of that key from the layers below, unless that layer's first line of
// the key is `+Key` (append to the lines below) ; a `/Key` line empties the
// key's list at that point. Within one layer repeated keys are all kept, in
// order. Keys are compared case-insensitively.
#include <span>

#include "conflux/config/torrc_parser.hpp"

namespace conflux::config {

// The effective entries: every op is Set, no Clear entries remain; each
// surviving entry keeps its original position. Lower layers' survivors come
// first, so a key's lines stay in priority order.
[[nodiscard]] Entries merge_layers(std::span<const Entries> layers);
[[nodiscard]] Entries merge_layers(const Entries& defaults, const Entries& torrc, const Entries& command_line);

}  // namespace conflux::config
