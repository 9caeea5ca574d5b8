// torrc parser: arbitrary text never crashes; accepted text, re-serialised by
// to_torrc, parses back to the same entries, and serialising that again gives
// the same text. Both programs' schemas (relay and proxy), the value parsers
// and %include resolution (with the input including itself) run on the same
// input for crash-freedom.
#include <cstdint>
#include <string>
#include <string_view>

#include "conflux/config/option_values.hpp"
#include "conflux/config/proxy_options.hpp"
#include "conflux/config/relay_options.hpp"
#include "conflux/config/router_set.hpp"
#include "conflux/config/torrc_parser.hpp"

using namespace conflux::config;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto first = parse_torrc_text(text, "fuzz");
  if (first) {
    auto serialised = to_torrc(*first);
    auto again = parse_torrc_text(serialised, "again");
    if (!again || again->size() != first->size()) __builtin_trap();
    for (std::size_t i = 0; i < first->size(); ++i)
      if (!same_entry((*first)[i], (*again)[i])) __builtin_trap();
    if (to_torrc(*again) != serialised) __builtin_trap();

    auto options = relay_options_from_entries(*first, "fuzz");
    if (!options && options.error().empty()) __builtin_trap();
    auto proxy = proxy_options_from_entries(*first, "fuzz");
    if (!proxy && proxy.error().empty()) __builtin_trap();
    // A proxy that starts has a valid, bounded configuration.
    if (proxy && (proxy->data_directory.empty() || proxy->dir_authorities.empty() ||
                  (proxy->use_bridges && proxy->bridges.empty()) || proxy->conflux_num_legs < 2 ||
                  proxy->conflux_num_legs > 8))
      __builtin_trap();
    for (const auto& e : *first) {
      (void)parse_memunit(e.value);
      (void)parse_interval(e.value);
      (void)parse_msec_interval(e.value);
      (void)parse_port_config(e.value, PortFlags::Listener);
      (void)parse_addr_port(e.value);
      (void)parse_log(e.value);
      (void)parse_dir_authority(e.value);
      (void)parse_double(e.value, -1, 1);
      (void)parse_socks_port(e.value);
      (void)parse_bridge_line(e.value);
      (void)parse_conflux_ux(e.value);
      (void)parse_router_set(e.value);
    }
  }
  MemoryFileSource files;
  files.add_file("/etc/torrc", std::string(text));
  files.add_file("/etc/torrc.d/a", "A 1\n");
  auto included = load_torrc_file("/etc/torrc", files);
  if (!first && included) __builtin_trap();  // includes never repair a bad text
  if (included.has_value() != first.has_value() && first.has_value()) {
    // Only %include lines may turn an accepted text into an error.
    bool has_include = false;
    for (const auto& e : *first) has_include = has_include || key_equals(e.key, kIncludeKey);
    if (!has_include) __builtin_trap();
  }
  return 0;
}
