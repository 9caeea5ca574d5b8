// tor's bandwidth file as our authority reads it (V3BandwidthsFile,
// dir/bandwidth_file.hpp): both versions of bandwidth-file-spec, and each of
// tor's rules for a line it skips or a file it refuses.
#include <string>

#include <catch2/catch.hpp>

#include "conflux/dir/bandwidth_file.hpp"

using namespace conflux;
using namespace conflux::dir;

namespace {

constexpr std::uint64_t kNow = 1'700'000'000;
const std::string kA = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
const std::string kB = "0123456789abcdef0123456789ABCDEF01234567";

crypto::RsaFingerprint fp(const std::string& hex) {
  crypto::RsaFingerprint out{};
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<std::uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return out;
}

MeasuredBandwidths parse_ok(const std::string& text, std::uint64_t now = kNow) {
  auto r = parse_bandwidth_file(text, now);
  REQUIRE(r);
  return *r;
}

std::string stamp(std::uint64_t t = kNow - 60) { return std::to_string(t) + "\n"; }

}  // namespace

TEST_CASE("bandwidth file 1.0.0: a timestamp, then node_id and bw lines", "[dir][bwfile]") {
  const auto m = parse_ok(stamp() + "node_id=$" + kA + " bw=2048\nnode_id=" + kB + " bw=7\n");
  CHECK(m.timestamp == kNow - 60);
  REQUIRE(m.kb.size() == 2);
  CHECK(m.kb.at(fp(kA)) == 2048);
  CHECK(m.kb.at(fp(kB)) == 7);  // without '$', mixed case: as tor takes it
  CHECK(m.skipped_lines == 0);
}

TEST_CASE("bandwidth file 1.1.0+: headers, the terminator, KeyValues in any order", "[dir][bwfile]") {
  for (const std::string terminator : {"=====", "===="}) {
    const auto m = parse_ok(stamp() + "version=1.4.0\nsoftware=sbws\nsoftware_version=1.1.0\n" + terminator +
                            "\n" + "bw=760 nick=relay1 node_id=$" + kA + " rtt=456 unmeasured=0\n" +
                            "master_key_ed25519=x\tbw=38\tnode_id=$" + kB + "\n");
    CHECK(m.kb.size() == 2);
    CHECK(m.kb.at(fp(kA)) == 760);
    CHECK(m.kb.at(fp(kB)) == 38);  // tabs part KeyValues too
    CHECK(m.skipped_lines == 0);
  }
}

TEST_CASE("bandwidth file: the headers end at the first relay line without a terminator", "[dir][bwfile]") {
  // tor's reader: a relay line ends the headers, so a KeyValue line after it
  // is a bad relay line, not a header.
  const auto m = parse_ok(stamp() + "version=1.1.0\nnode_id=$" + kA + " bw=5\nlate_header=1\n");
  CHECK(m.kb.size() == 1);
  CHECK(m.skipped_lines == 1);
}

TEST_CASE("bandwidth file: a line with vote=0 is no measurement and no error", "[dir][bwfile]") {
  const auto m = parse_ok(stamp() + "=====\nnode_id=$" + kA + " bw=5 vote=0 unmeasured=1\nnode_id=$" + kB +
                          " bw=6\n");
  CHECK(m.kb.size() == 1);
  CHECK(m.kb.contains(fp(kB)));
  CHECK(m.skipped_lines == 0);
}

TEST_CASE("bandwidth file: each malformed relay line is skipped and counted, the rest counts", "[dir][bwfile]") {
  const std::string bad[] = {
      "node_id=$" + kA + " bw=5 bw=6",            // bw twice
      "node_id=$" + kA + " node_id=$" + kB + " bw=6",  // node_id twice
      "node_id=$" + kA + " bw=-5",                // not digits
      "node_id=$" + kA + " bw=+5",
      "node_id=$" + kA + " bw=5x",
      "node_id=$" + kA + " bw=4294967296",        // above 32 bits
      "node_id=$" + kA + " bw=",
      "node_id=$" + kA.substr(1) + " bw=5",       // 39 hex digits
      "node_id=$" + kA + "A bw=5",                // 41
      "node_id=$" + kA.substr(1) + "G bw=5",      // not hex
      "node_id=$$" + kA + " bw=5",
      "",                                         // an empty line
      " \t ",
  };
  for (const auto& line : bad) {
    INFO(line);
    const auto m = parse_ok(stamp() + "=====\n" + line + "\nnode_id=$" + kB + " bw=9\n");
    CHECK(m.kb.size() == 1);
    CHECK(m.kb.at(fp(kB)) == 9);
    CHECK(m.skipped_lines == 1);
  }
  // bw at the limit is taken.
  CHECK(parse_ok(stamp() + "node_id=" + kA + " bw=4294967295\n").kb.at(fp(kA)) == 4294967295u);
}

TEST_CASE("bandwidth file: after the headers a line without node_id or bw is skipped", "[dir][bwfile]") {
  const auto m = parse_ok(stamp() + "=====\nbw=5\nnode_id=$" + kA + "\nnick=x\n");
  CHECK(m.kb.empty());
  CHECK(m.skipped_lines == 3);
  // Before them the same lines are headers, not errors.
  CHECK(parse_ok(stamp() + "bw=5\nnick=x\n=====\n").skipped_lines == 0);
}

TEST_CASE("bandwidth file: the last line without a newline is skipped, as tor's reader skips it", "[dir][bwfile]") {
  const auto m = parse_ok(stamp() + "node_id=$" + kA + " bw=5\nnode_id=$" + kB + " bw=6");
  CHECK(m.kb.size() == 1);
  CHECK(m.skipped_lines == 1);
}

TEST_CASE("bandwidth file: a relay listed twice keeps its first line", "[dir][bwfile]") {
  const auto m = parse_ok(stamp() + "node_id=$" + kA + " bw=5\nnode_id=" + kA + " bw=6\n");
  CHECK(m.kb.at(fp(kA)) == 5);
  CHECK(m.skipped_lines == 1);
}

TEST_CASE("bandwidth file: a bad timestamp gives no measurements", "[dir][bwfile]") {
  const std::string relay = "node_id=$" + kA + " bw=5\n";
  for (const std::string first : {"", "x", "-1", "+1700000000", " 1700000000", "1700000000 ", "1700000000.5",
                                  "99999999999999999999"}) {
    INFO(first);
    auto r = parse_bandwidth_file(first + "\n" + relay, kNow);
    REQUIRE_FALSE(r);
    CHECK(r.error() == DirError{DirErrc::BadValue, "timestamp"});
  }
  auto unterminated = parse_bandwidth_file(std::to_string(kNow), kNow);
  REQUIRE_FALSE(unterminated);
  CHECK(unterminated.error().code == DirErrc::BadValue);
}

TEST_CASE("bandwidth file: older than three days gives no measurements, newer than now counts", "[dir][bwfile]") {
  const std::string relay = "node_id=$" + kA + " bw=5\n";
  CHECK(parse_ok(stamp(kNow - kMaxMeasurementAge) + relay).kb.size() == 1);
  auto stale = parse_bandwidth_file(stamp(kNow - kMaxMeasurementAge - 1) + relay, kNow);
  REQUIRE_FALSE(stale);
  CHECK(stale.error() == DirError{DirErrc::Expired, "timestamp"});
  CHECK(parse_ok(stamp(kNow + 3600) + relay).kb.size() == 1);
}

TEST_CASE("bandwidth file: the size, line and relay caps", "[dir][bwfile]") {
  auto big = parse_bandwidth_file(std::string(kMaxBandwidthFileSize + 1, '\n'), kNow);
  REQUIRE_FALSE(big);
  CHECK(big.error().code == DirErrc::TooLarge);

  const std::string pad(kMaxBandwidthFileLine, 'x');
  const auto m = parse_ok(stamp() + "node_id=$" + kA + " bw=5 pad=" + pad + "\nnode_id=$" + kB + " bw=6\n");
  CHECK(m.kb.size() == 1);
  CHECK(m.kb.contains(fp(kB)));
  CHECK(m.skipped_lines == 1);

  std::string many = stamp();
  for (std::size_t i = 0; i <= kMaxMeasuredRelays; ++i) {
    char hex[41];
    std::snprintf(hex, sizeof hex, "%040zx", i);
    many += "node_id=" + std::string(hex) + " bw=1\n";
  }
  const auto capped = parse_ok(many);
  CHECK(capped.kb.size() == kMaxMeasuredRelays);
  CHECK(capped.skipped_lines == 1);
}
