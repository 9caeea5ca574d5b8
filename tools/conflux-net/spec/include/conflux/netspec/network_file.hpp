#pragma once
// DIR/network.json: what `up` started, for `status`, `down`, scripts and
// people. Written (atomically) as soon as the first process starts, with
// state "starting", so that `down` can always stop what exists; rewritten
// with state "ready" once the network works, "failed" when `up` gave up
// and "stopped" after `down`. Format: docs/CONFLUX-NET.md.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conflux/bytes/result.hpp"
#include "conflux/netspec/plan.hpp"

namespace conflux::netspec {

inline constexpr int kNetworkFileVersion = 1;

struct ProcessRecord {
  std::string name;
  Role role = Role::Relay;
  bool started = false;          // false: configured only (a proxy not started by default)
  std::int64_t pid = 0;          // when started
  std::uint64_t start_time = 0;  // /proc/PID/stat starttime (clock ticks since boot): a reused pid differs
  std::string binary;            // the program, as executed (argv[0])
  std::vector<std::string> args;
  Ports ports;
  std::string identity;  // relays: Ed25519 identity, base64
  std::string rsa_fingerprint;  // relays: their RSA identity's SHA-1, 40 hex digits (tor's fingerprint)
  std::string implementation;   // relays and proxies: "tor" when stock tor runs it; empty for ours (and in older files)
  std::string dir, torrc, data_dir, log, output;
  std::string address;  // where it listens (ProcessPlan::address); optional when read
  std::string netns;    // emulated networks: its network namespace; optional when read
  bool operator==(const ProcessRecord&) const = default;
};

struct FileRecord {
  std::string name;
  std::uint64_t size = 0;
  std::string url;
  std::string sha256;  // lower-case hex
  bool operator==(const FileRecord&) const = default;
};

struct ProxyAddresses {
  std::string name;
  std::string socks;    // "127.0.0.1:PORT"
  std::string metrics;  // "http://127.0.0.1:PORT/metrics"
  bool operator==(const ProxyAddresses&) const = default;
};

struct NetworkInfo {
  std::string state = "starting";  // starting | ready | failed | stopped
  std::string dir;
  std::uint64_t created = 0;       // Unix seconds
  std::int64_t up_pid = 0;         // the `conflux-net up` that wrote it
  std::vector<ProcessRecord> processes;
  std::optional<ProxyAddresses> proxy;  // the first started proxy
  std::string file_server;              // "http://127.0.0.1:PORT/"
  // Every origin the file server answers on ("http://127.0.0.1:PORT/",
  // "http://127.0.0.2:PORT/", ...: the spec's file_origins); optional when read.
  std::vector<std::string> file_origins;
  std::vector<FileRecord> files;
  // The authorities in tor's DirAuthority syntax (v3ident= and the RSA
  // fingerprint), for a stock tor client; optional when read.
  std::vector<std::string> tor_dir_authorities;
  // An emulated network's namespaces, which `down` removes after the
  // processes (only names starting "cfx-"); optional when read.
  std::vector<std::string> namespaces;
  bool operator==(const NetworkInfo&) const = default;
};

[[nodiscard]] std::string encode_network(const NetworkInfo& info);

// Bounded and strict: a pid outside 2..4194304 for a started process (a
// pid that kill() would treat specially) is refused, so that `down` can
// never signal a process group or init.
[[nodiscard]] Result<NetworkInfo, std::string> decode_network(std::string_view json_text);

}  // namespace conflux::netspec
