#pragma once
// Where conflux-net finds the programs it starts (docs/CONFLUX-NET.md):
//   1. --bin-dir DIR, else $CONFLUX_BIN_DIR: DIR/NAME, or the build-tree
//      layout under DIR (DIR/exit/app/conflux-relay, DIR/client/app/conflux-proxy);
//   2. beside conflux-net itself (an installed bin/ directory);
//   3. conflux-net's own build tree: build/X/tools/conflux-net/conflux-net
//      -> build/X/exit/app/conflux-relay and build/X/client/app/conflux-proxy.
#include <filesystem>
#include <optional>
#include <string>

namespace conflux::netapp {

struct Programs {
  std::filesystem::path self;   // conflux-net (it serves the files)
  std::filesystem::path relay;  // conflux-relay
  std::filesystem::path proxy;  // conflux-proxy; empty if not found
};

// nullopt with `error` set when conflux-relay cannot be found.
[[nodiscard]] std::optional<Programs> locate_programs(const std::string& bin_dir_flag, std::string& error);

}  // namespace conflux::netapp
