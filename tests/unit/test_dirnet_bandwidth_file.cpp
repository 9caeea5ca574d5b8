// V3BandwidthsFile as the authority reads it from disk before each consensus
// (dirnet/bandwidth_file_reader.hpp): the measurements, or none with tor's
// warning, never an exception.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "conflux/dirnet/bandwidth_file_reader.hpp"

using namespace conflux;
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kNow = 1'700'000'000;
const std::string kRelay = "node_id=$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA bw=1234\n";

struct Captured {
  std::vector<std::string> warnings;
  log::Sink sink() {
    return [this](log::Severity s, std::string_view m) {
      if (s == log::Severity::Warn) warnings.emplace_back(m);
    };
  }
};

fs::path write_temp(const std::string& name, const std::string& text) {
  const auto p = fs::temp_directory_path() / ("conflux-bwfile-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

}  // namespace

TEST_CASE("bandwidth file reader: a good file's measurements, no warning", "[dirnet][bwfile]") {
  const auto p = write_temp("good", std::to_string(kNow) + "\n" + kRelay);
  Captured c;
  const auto m = dirnet::read_bandwidth_file(p.string(), kNow, c.sink());
  CHECK(m.kb.size() == 1);
  CHECK(m.kb.begin()->second == 1234);
  CHECK(c.warnings.empty());
  fs::remove(p);
}

TEST_CASE("bandwidth file reader: a missing, stale or timestamp-less file gives none, with a warning",
          "[dirnet][bwfile]") {
  Captured c;
  const std::string missing = (fs::temp_directory_path() / "conflux-bwfile-does-not-exist").string();
  CHECK(dirnet::read_bandwidth_file(missing, kNow, c.sink()).kb.empty());
  REQUIRE(c.warnings.size() == 1);
  CHECK(c.warnings[0] == "Can't open bandwidth file at configured location: " + missing);

  const auto stale = write_temp("stale", std::to_string(kNow - 4 * 86400) + "\n" + kRelay);
  CHECK(dirnet::read_bandwidth_file(stale.string(), kNow, c.sink()).kb.empty());
  REQUIRE(c.warnings.size() == 2);
  CHECK(c.warnings[1] == "Bandwidth file " + stale.string() +
                             " not used (its timestamp is more than three days old): no relay is measured");
  const auto junk = write_temp("junk", "version=1.4.0\n" + kRelay);
  CHECK(dirnet::read_bandwidth_file(junk.string(), kNow, c.sink()).kb.empty());
  REQUIRE(c.warnings.size() == 3);
  CHECK(c.warnings[2].find("its first line is not a timestamp") != std::string::npos);
  // A directory opens but does not read.
  CHECK(dirnet::read_bandwidth_file(fs::temp_directory_path().string(), kNow, c.sink()).kb.empty());
  CHECK(c.warnings.size() == 4);
  fs::remove(stale);
  fs::remove(junk);
}

TEST_CASE("bandwidth file reader: skipped relay lines are counted in one warning", "[dirnet][bwfile]") {
  const auto p = write_temp("skips", std::to_string(kNow) + "\n" + kRelay + "bw=1\nnode_id=$X bw=2\n");
  Captured c;
  CHECK(dirnet::read_bandwidth_file(p.string(), kNow, c.sink()).kb.size() == 1);
  REQUIRE(c.warnings.size() == 1);
  CHECK(c.warnings[0] == "Bandwidth file " + p.string() +
                             ": 2 relay lines skipped (malformed, repeated or past the caps); 1 relays measured");
  fs::remove(p);
}

TEST_CASE("bandwidth file reader: a file above the cap is not read to its end", "[dirnet][bwfile]") {
  const auto p = write_temp("big", std::to_string(kNow) + "\n" + kRelay);
  fs::resize_file(p, dir::kMaxBandwidthFileSize + 1);  // zeros after the relay line
  Captured c;
  CHECK(dirnet::read_bandwidth_file(p.string(), kNow, c.sink()).kb.empty());
  REQUIRE(c.warnings.size() == 1);
  CHECK(c.warnings[0].find("larger than 33554432 bytes") != std::string::npos);
  fs::remove(p);
}
