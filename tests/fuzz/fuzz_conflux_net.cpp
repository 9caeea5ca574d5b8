// conflux-net's decoders: the spec file, network.json, the router's
// emulation.json (names it could misuse are refused), the file server's
// request target and Range header, and the metric line `status` reads. Any
// input never crashes; a spec or network.json that decodes re-encodes to
// the same value; the two files of a stock tor relay's DataDirectory decode
// or are refused; a file name never leaves the served directory; a range is
// inside the file; no decoded record holds a pid kill() treats specially.
#include <cstdint>
#include <string>
#include <string_view>

#include "conflux/netspec/emulation.hpp"
#include "conflux/netspec/http_files.hpp"
#include "conflux/netspec/json_lines.hpp"
#include "conflux/netspec/metrics_text.hpp"
#include "conflux/netspec/network_file.hpp"
#include "conflux/netspec/spec.hpp"
#include "conflux/netspec/tor_key_files.hpp"

using namespace conflux::netspec;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  if (auto spec = parse_spec(text)) {
    auto again = parse_spec(encode_spec(*spec));
    if (!again || !(*again == *spec)) __builtin_trap();
  } else if (spec.error().message.empty()) {
    __builtin_trap();
  }
  (void)index_json_lines(text);

  if (auto net = decode_network(text)) {
    for (const auto& p : net->processes)
      if (p.started && p.pid < 2) __builtin_trap();
    auto again = decode_network(encode_network(*net));
    if (!again || !(*again == *net)) __builtin_trap();
  }

  if (auto router = decode_router_config(text)) {
    for (const auto& h : router->hosts)
      if (h.device.empty() || h.device.size() > 15 || h.netns.find('/') != std::string::npos) __builtin_trap();
    auto again = decode_router_config(encode_router_config(*router));
    if (!again || !(*again == *router)) __builtin_trap();
  }

  if (auto name = file_for_target(text)) {
    if (name->empty() || name->front() == '.' || name->find('/') != std::string::npos) __builtin_trap();
  }
  const std::uint64_t file_size = size * 7919ULL;
  const auto range = decide_range(text, file_size);
  if (range.kind == RangeKind::Partial && (range.range.first > range.range.last || range.range.last >= file_size))
    __builtin_trap();

  (void)find_metric(text, "conflux_proxy_bootstrap_percent");
  (void)parse_tor_fingerprint_file(text);
  (void)parse_tor_ed25519_public_key_file({data, size});
  return 0;
}
