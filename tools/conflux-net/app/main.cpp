// conflux-net: a whole Conflux network on one machine (docs/CONFLUX-NET.md).
// A handful of flags per subcommand, parsed by hand.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "conflux/netspec/spec.hpp"

namespace {

constexpr const char* kUsage =
    "usage: conflux-net up --dir DIR [--spec FILE] [--bin-dir DIR] [--timeout SECONDS]\n"
    "       conflux-net status --dir DIR [--json]\n"
    "       conflux-net down --dir DIR\n"
    "       conflux-net default-spec\n"
    "       conflux-net delay-line --a TUN --b TUN [--latency MS] [--jitter MS] [--loss FRACTION]\n"
    "                              [--queue-packets N] [--seed N]\n"
    "       conflux-net --help | --version\n"
    "\n"
    "  up            generate keys, torrcs and test files in DIR, start a network on 127.0.0.1\n"
    "                (or, with the spec's \"emulation\", each process in its own network namespace)\n"
    "                in the background and return once its proxy has bootstrapped\n"
    "                (default: 1 authority, 6 relays of which 2 exits, 2 slow bridges, 1 proxy,\n"
    "                a file server); DIR/network.json then lists every process and address\n"
    "  status        which processes run, and the proxy's bootstrap state (exit 0: all running)\n"
    "  down          stop every process `up` started in DIR, and nothing else\n"
    "  default-spec  print the default network's spec (a starting point for --spec)\n"
    "  delay-line    an emulated link between two TUN devices it creates: one-way latency,\n"
    "                +-jitter (uniform, no reordering) and loss per direction; rates are tc's\n"
    "                job (tbf on each device); prints 'ready' once both exist\n"
    "\n"
    "  --spec FILE     the network to start (JSON; fields in docs/CONFLUX-NET.md)\n"
    "  --bin-dir DIR   where conflux-relay and conflux-proxy are (else $CONFLUX_BIN_DIR,\n"
    "                  else beside conflux-net, else conflux-net's build tree)\n"
    "  --timeout S     give up after S seconds (default 120)\n";

struct Args {
  std::map<std::string, std::string> values;  // --flag value
  std::vector<std::string> switches;          // --flag
  std::string error;
};

// `valued` flags take the next argument; `switches` take none.
Args parse(int argc, char** argv, int from, const std::vector<std::string>& valued,
           const std::vector<std::string>& switches) {
  Args a;
  for (int i = from; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool inline_value = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      inline_value = true;
    }
    if (std::find(valued.begin(), valued.end(), arg) != valued.end()) {
      if (!inline_value) {
        if (i + 1 >= argc) {
          a.error = arg + " needs a value";
          return a;
        }
        value = argv[++i];
      }
      if (a.values.count(arg) != 0) {
        a.error = arg + " given twice";
        return a;
      }
      a.values[arg] = value;
    } else if (!inline_value && std::find(switches.begin(), switches.end(), arg) != switches.end()) {
      a.switches.push_back(arg);
    } else {
      a.error = "unknown argument '" + std::string(argv[i]) + "'";
      return a;
    }
  }
  return a;
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "conflux-net: %s\n%s", message.c_str(), kUsage);
  return 2;
}

// A decimal number in [lo, hi], or nullopt.
std::optional<double> number_in(const std::string& text, double lo, double hi) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= lo && v <= hi)) return std::nullopt;
  return v;
}

int delay_line_command(int argc, char** argv) {
  auto a = parse(argc, argv, 2, {"--a", "--b", "--latency", "--jitter", "--loss", "--queue-packets", "--seed"}, {});
  if (!a.error.empty()) return usage_error(a.error);
  conflux::netapp::DelayLineOptions o;
  o.tun_a = a.values["--a"];
  o.tun_b = a.values["--b"];
  if (o.tun_a.empty() || o.tun_b.empty() || o.tun_a == o.tun_b)
    return usage_error("delay-line needs two different devices: --a TUN --b TUN");
  auto ms = [&](const char* flag) -> std::optional<std::chrono::microseconds> {
    if (a.values.count(flag) == 0) return std::chrono::microseconds(0);
    auto v = number_in(a.values[flag], 0, 10000);
    if (!v) return std::nullopt;
    return std::chrono::microseconds(static_cast<std::int64_t>(*v * 1000.0));
  };
  const auto latency = ms("--latency");
  const auto jitter = ms("--jitter");
  if (!latency || !jitter) return usage_error("--latency and --jitter want 0 to 10000 milliseconds");
  o.link.latency = *latency;
  o.link.jitter = *jitter;
  const auto loss = number_in(a.values.count("--loss") ? a.values["--loss"] : "0", 0, 1);
  if (!loss) return usage_error("--loss wants a fraction from 0 to 1 (0.02 is 2%)");
  o.link.loss = *loss;
  if (a.values.count("--queue-packets") != 0) {
    const auto q = number_in(a.values["--queue-packets"], 1, 1000000);
    if (!q || *q != static_cast<double>(static_cast<std::size_t>(*q))) return usage_error("--queue-packets wants 1 to 1000000");
    o.link.queue_packets = static_cast<std::size_t>(*q);
  }
  if (a.values.count("--seed") != 0) {
    char* end = nullptr;
    const auto& t = a.values["--seed"];
    o.seed = std::strtoull(t.c_str(), &end, 10);
    if (t.empty() || *end != '\0') return usage_error("--seed wants a non-negative integer");
  }
  return conflux::netapp::run_delay_line(o);
}

bool has(const Args& a, const char* s) { return std::find(a.switches.begin(), a.switches.end(), s) != a.switches.end(); }

}  // namespace

int main(int argc, char** argv) {
  using namespace conflux::netapp;
  if (argc < 2) return usage_error("which subcommand?");
  const std::string cmd = argv[1];
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    std::printf("%s", kUsage);
    return 0;
  }
  if (cmd == "--version") {
    std::printf("conflux-net 0.1.0\n");
    return 0;
  }
  if (cmd == "default-spec") {
    if (argc > 2) return usage_error("default-spec takes no arguments");
    std::printf("%s", conflux::netspec::encode_spec(conflux::netspec::default_spec()).c_str());
    return 0;
  }
  if (cmd == "serve-files") {  // started by `up`; not in the usage text
    auto a = parse(argc, argv, 2, {"--root", "--listen"}, {});
    if (!a.error.empty() || a.values.count("--root") == 0 || a.values.count("--listen") == 0)
      return usage_error(a.error.empty() ? "serve-files needs --root DIR --listen ADDRESS:PORT" : a.error);
    return run_serve_files(a.values["--root"], a.values["--listen"]);
  }
  if (cmd == "delay-line") return delay_line_command(argc, argv);
  if (cmd == "router") {  // started by `up` for an emulated network; not in the usage text
    auto r = parse(argc, argv, 2, {"--config"}, {});
    if (!r.error.empty() || r.values["--config"].empty())
      return usage_error(r.error.empty() ? "router needs --config FILE" : r.error);
    return run_router(r.values["--config"]);
  }
  Args a;
  if (cmd == "up") {
    a = parse(argc, argv, 2, {"--dir", "--spec", "--bin-dir", "--timeout"}, {});
  } else if (cmd == "status") {
    a = parse(argc, argv, 2, {"--dir"}, {"--json"});
  } else if (cmd == "down") {
    a = parse(argc, argv, 2, {"--dir"}, {});
  } else {
    return usage_error("unknown subcommand '" + cmd + "'");
  }
  if (!a.error.empty()) return usage_error(a.error);
  if (a.values["--dir"].empty()) return usage_error(cmd + " needs --dir DIR");
  const std::filesystem::path dir = a.values["--dir"];
  if (cmd == "status") return run_status(dir, has(a, "--json"));
  if (cmd == "down") return run_down(dir);

  UpOptions o;
  o.dir = dir;
  o.spec_file = a.values["--spec"];
  o.bin_dir = a.values["--bin-dir"];
  if (a.values.count("--timeout") != 0) {
    const auto& t = a.values["--timeout"];
    char* end = nullptr;
    const long secs = std::strtol(t.c_str(), &end, 10);
    if (t.empty() || *end != '\0' || secs < 1 || secs > 3600) return usage_error("--timeout wants 1 to 3600 seconds");
    o.timeout = std::chrono::seconds(secs);
  }
  return run_up(o);
}
