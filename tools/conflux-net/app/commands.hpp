#pragma once
// conflux-net's subcommands (docs/CONFLUX-NET.md). Each returns the exit status.
#include <chrono>
#include <filesystem>
#include <cstdint>
#include <string>

#include "conflux/netspec/delay_line.hpp"

namespace conflux::netapp {

struct UpOptions {
  std::filesystem::path dir;
  std::string spec_file;  // empty: the default network
  std::string bin_dir;    // empty: $CONFLUX_BIN_DIR, then the build tree
  std::chrono::seconds timeout{120};
};

int run_up(const UpOptions& options);
int run_status(const std::filesystem::path& dir, bool json);
int run_down(const std::filesystem::path& dir);
// The file server process `up` starts: HTTP/1.1 GET and HEAD of the plain
// files directly under `root`, and POST /echo, on `listen` ("127.0.0.1:PORT",
// or several "ADDRESS:PORT" separated by commas: one origin each).
int run_serve_files(const std::filesystem::path& root, const std::string& listen);


struct DelayLineOptions {
  std::string tun_a;  // the two TUN devices the link joins
  std::string tun_b;
  netspec::LinkParams link;  // the same in both directions, each with its own queue and draws
  std::uint64_t seed = 1;
};
// An emulated link between two TUN devices, until SIGINT or SIGTERM; then it
// prints each direction's counters as a JSON line (docs/CONFLUX-NET.md, "Link emulation"). It
// also stops, with status 1, when reading a device fails for good (the device was deleted).
int run_delay_line(const DelayLineOptions& options);

// An emulated network's router (DIR/emulation.json, written by `up`), until
// SIGINT or SIGTERM; then each host's counters as JSON lines. Stops with
// status 1 when a device fails for good.
int run_router(const std::filesystem::path& config_file);

}  // namespace conflux::netapp
