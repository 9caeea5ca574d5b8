// ServerDNSResolvConfFile's nameserver lines, with tor's (libevent's) ports,
// and which file the exit's resolver reads (/etc/resolv.conf when unset).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>

#include "conflux/config/resolv_conf.hpp"

using namespace conflux::config;

TEST_CASE("resolv.conf: nameserver lines with and without ports, comments, other lines ignored", "[config][dns]") {
  const auto conf = parse_resolv_conf(
      "# local test resolver\n"
      "search example.org\n"
      "nameserver 127.0.0.1:5353 ; the test's\n"
      "nameserver\t10.0.0.1\r\n"
      "nameserver [::1]:53000\n"
      "nameserver ::1\n"
      "options timeout:1\n");
  REQUIRE(conf.nameservers.size() == 4);
  CHECK(conf.nameservers[0].to_string() == "127.0.0.1:5353");
  CHECK(conf.nameservers[1].to_string() == "10.0.0.1:53");
  CHECK(conf.nameservers[2].to_string() == "[::1]:53000");
  CHECK(conf.nameservers[3].to_string() == "[::1]:53");
}

TEST_CASE("resolv.conf: lines that do not parse are skipped, at most 16 kept", "[config][dns]") {
  CHECK(parse_resolv_conf("nameserver\nnameserver host.example\nnameservers 1.2.3.4\nnameserver 1.2.3.4:0\n")
            .nameservers.empty());
  std::string many;
  for (int i = 0; i < 20; ++i) many += "nameserver 127.0.0." + std::to_string(i + 1) + "\n";
  CHECK(parse_resolv_conf(many).nameservers.size() == kMaxNameservers);
  CHECK(parse_resolv_conf("").nameservers.empty());
}

namespace {

namespace fs = std::filesystem;

// A directory of its own under the system's temp directory, removed at the end.
struct ScratchDir {
  fs::path root = fs::temp_directory_path() / ("conflux-test-resolv-" + std::to_string(std::random_device{}()));
  ScratchDir() { fs::create_directories(root); }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  [[nodiscard]] std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(root / name, std::ios::binary | std::ios::trunc) << text;
    return (root / name).string();
  }
};

std::vector<std::string> texts(const std::vector<AddrPort>& servers) {
  std::vector<std::string> out;
  for (const auto& s : servers) out.push_back(s.to_string());
  return out;
}

const std::vector<std::string> kLocalFallback{"127.0.0.1:53"};

}  // namespace

TEST_CASE("resolver nameservers: unset, the system file is read", "[config][dns]") {
  ScratchDir dir;
  const auto system = dir.write("resolv.conf", "search example.org\nnameserver 10.0.0.2\nnameserver 10.0.0.3:5353\n");
  RealFileSource files;
  const auto found = resolver_nameservers("", files, system);
  REQUIRE(found);
  CHECK(texts(found->nameservers) == std::vector<std::string>{"10.0.0.2:53", "10.0.0.3:5353"});
  CHECK(found->warnings.empty());
}

TEST_CASE("resolver nameservers: the default system file is /etc/resolv.conf", "[config][dns]") {
  // Read from memory: the test never depends on this machine's file.
  MemoryFileSource files;
  files.add_file("/etc/resolv.conf", "nameserver 192.0.2.53\n");
  const auto found = resolver_nameservers("", files);
  REQUIRE(found);
  CHECK(texts(found->nameservers) == std::vector<std::string>{"192.0.2.53:53"});
}

TEST_CASE("resolver nameservers: unset and the system file changes between two reads (SIGHUP)", "[config][dns]") {
  ScratchDir dir;
  const auto system = dir.write("resolv.conf", "nameserver 10.0.0.2\n");
  RealFileSource files;
  const auto first = resolver_nameservers("", files, system);
  (void)dir.write("resolv.conf", "# a comment only\nnameserver 10.0.0.2\n");
  const auto same = resolver_nameservers("", files, system);
  (void)dir.write("resolv.conf", "nameserver 10.0.0.4\nnameserver 10.0.0.2\n");
  const auto changed = resolver_nameservers("", files, system);
  REQUIRE(first);
  REQUIRE(same);
  REQUIRE(changed);
  // A comment is no change (the relay keeps its resolver); new lines are.
  CHECK(same->nameservers == first->nameservers);
  CHECK(texts(changed->nameservers) == std::vector<std::string>{"10.0.0.4:53", "10.0.0.2:53"});
}

TEST_CASE("resolver nameservers: unset and the system file missing, tor's fallback to 127.0.0.1", "[config][dns]") {
  ScratchDir dir;
  const auto missing = (dir.root / "absent.conf").string();
  RealFileSource files;
  const auto found = resolver_nameservers("", files, missing);
  REQUIRE(found);
  CHECK(texts(found->nameservers) == kLocalFallback);
  REQUIRE(found->warnings.size() == 1);
  CHECK(found->warnings[0].file == missing);
  CHECK(found->warnings[0].message ==
        "Could not read your DNS config (no such file); please investigate your DNS configuration. Meanwhile, "
        "falling back to local DNS at 127.0.0.1.");
}

TEST_CASE("resolver nameservers: unset and the system file empty or without nameserver, 127.0.0.1", "[config][dns]") {
  ScratchDir dir;
  RealFileSource files;
  const auto empty = resolver_nameservers("", files, dir.write("empty.conf", ""));
  REQUIRE(empty);
  CHECK(texts(empty->nameservers) == kLocalFallback);
  REQUIRE(empty->warnings.size() == 1);
  CHECK(empty->warnings[0].message.find("(the file is empty)") != std::string::npos);
  const auto none = resolver_nameservers("", files, dir.write("none.conf", "search example.org\nnameserver host\n"));
  REQUIRE(none);
  CHECK(texts(none->nameservers) == kLocalFallback);
  REQUIRE(none->warnings.size() == 1);
  CHECK(none->warnings[0].message.find("(no usable 'nameserver' line)") != std::string::npos);
}

TEST_CASE("resolver nameservers: a named file is read, the system file is not", "[config][dns]") {
  ScratchDir dir;
  const auto system = dir.write("resolv.conf", "nameserver 10.0.0.2\n");
  const auto named = dir.write("named.conf", "nameserver 127.0.0.1:5353\n");
  RealFileSource files;
  const auto found = resolver_nameservers(named, files, system);
  REQUIRE(found);
  CHECK(texts(found->nameservers) == std::vector<std::string>{"127.0.0.1:5353"});
  CHECK(found->warnings.empty());
}

TEST_CASE("resolver nameservers: a named file missing or without nameserver is an error, no fallback",
          "[config][dns]") {
  ScratchDir dir;
  RealFileSource files;
  const auto missing = (dir.root / "absent.conf").string();
  const auto absent = resolver_nameservers(missing, files, dir.write("resolv.conf", "nameserver 10.0.0.2\n"));
  REQUIRE_FALSE(absent);
  CHECK(absent.error().file == missing);
  CHECK(absent.error().message.rfind("ServerDNSResolvConfFile: ", 0) == 0);
  const auto empty = dir.write("empty.conf", "");
  const auto none = resolver_nameservers(empty, files);
  REQUIRE_FALSE(none);
  CHECK(none.error() == ConfigError{empty, 0, "ServerDNSResolvConfFile: no usable 'nameserver' line"});
}
