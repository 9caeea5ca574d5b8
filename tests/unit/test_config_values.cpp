// Typed values: booleans, integers, tor's unit tables, intervals, addresses
// and ports, and the relay-specific value syntaxes.
#include <catch2/catch.hpp>

#include "conflux/config/address.hpp"
#include "conflux/config/option_values.hpp"
#include "conflux/config/values.hpp"
#include "test_support.hpp"

using namespace conflux::config;
using namespace std::chrono_literals;

TEST_CASE("booleans and autobooleans", "[config][values]") {
  CHECK(*parse_bool("0") == false);
  CHECK(*parse_bool("1") == true);
  for (auto bad : {"", "2", "true", "yes", " 1", "01", "auto"}) CHECK_FALSE(parse_bool(bad));
  CHECK(*parse_autobool("auto") == AutoBool::Auto);
  CHECK(*parse_autobool("AUTO") == AutoBool::Auto);
  CHECK(*parse_autobool("0") == AutoBool::False);
  CHECK(*parse_autobool("1") == AutoBool::True);
  CHECK_FALSE(parse_autobool("automatic"));
  CHECK(to_string(AutoBool::Auto) == "auto");
}

TEST_CASE("integers with ranges", "[config][values]") {
  CHECK(*parse_int("0", 0, 10) == 0);
  CHECK(*parse_int("10", 0, 10) == 10);
  CHECK(*parse_int("-5", -10, 10) == -5);
  CHECK_FALSE(parse_int("11", 0, 10));
  CHECK_FALSE(parse_int("-1", 0, 10));
  CHECK_FALSE(parse_int("-", -10, 10));
  CHECK_FALSE(parse_int("+1", 0, 10));
  CHECK_FALSE(parse_int("1x", 0, 10));
  CHECK_FALSE(parse_int("", 0, 10));
  CHECK_FALSE(parse_int("99999999999999999999", 0, 10));
  CHECK(*parse_double("0.5", -1, 10) == 0.5);
  CHECK(*parse_double("-1", -1, 10) == -1.0);
  CHECK_FALSE(parse_double("-2", -1, 10));
  CHECK_FALSE(parse_double("nan", -1, 10));
  CHECK_FALSE(parse_double("1e3", -1, 1e9));
}

TEST_CASE("memory units: tor's whole table", "[config][values][units]") {
  struct Row {
    const char* unit;
    std::uint64_t bytes;
  };
  // tor's memory_units (src/lib/confmgt/unitparse.c), written out from the
  // definition: KB = 1024 bytes; kbit = 1024 bits = 128 bytes.
  const Row rows[] = {
      {"", 1},
      {"b", 1},
      {"byte", 1},
      {"bytes", 1},
      {"kb", 1024},
      {"kbyte", 1024},
      {"kbytes", 1024},
      {"kilobyte", 1024},
      {"kilobytes", 1024},
      {"kilobits", 128},
      {"kilobit", 128},
      {"kbits", 128},
      {"kbit", 128},
      {"m", 1048576},
      {"mb", 1048576},
      {"mbyte", 1048576},
      {"mbytes", 1048576},
      {"megabyte", 1048576},
      {"megabytes", 1048576},
      {"megabits", 131072},
      {"megabit", 131072},
      {"mbits", 131072},
      {"mbit", 131072},
      {"gb", 1073741824},
      {"gbyte", 1073741824},
      {"gbytes", 1073741824},
      {"gigabyte", 1073741824},
      {"gigabytes", 1073741824},
      {"gigabits", 134217728},
      {"gigabit", 134217728},
      {"gbits", 134217728},
      {"gbit", 134217728},
      {"tb", 1099511627776},
      {"tbyte", 1099511627776},
      {"tbytes", 1099511627776},
      {"terabyte", 1099511627776},
      {"terabytes", 1099511627776},
      {"terabits", 137438953472},
      {"terabit", 137438953472},
      {"tbits", 137438953472},
      {"tbit", 137438953472},
  };
  CHECK(memory_units().size() == std::size(rows));
  for (const auto& row : rows) {
    INFO(row.unit);
    std::string u = row.unit;
    CHECK(*parse_memunit("3 " + u) == 3 * row.bytes);
    CHECK(*parse_memunit("3" + u) == 3 * row.bytes);  // blank optional
    std::string upper = u;
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    CHECK(*parse_memunit("2 " + upper) == 2 * row.bytes);
  }
  CHECK(*parse_memunit("1 MB") == 1048576);
  CHECK(*parse_memunit("100 KBytes") == 102400);
  CHECK(*parse_memunit("50 kbits") == 6400);
  CHECK(*parse_memunit("1 GB") == 1073741824);
  CHECK(*parse_memunit("1.5 MB") == 1572864);
  CHECK(*parse_memunit("0.5 kbits") == 64);
  CHECK(*parse_memunit("0 bytes") == 0);
  for (auto bad : {"", "MB", "1 MiB", "1 bits", "1 bit", "-1 MB", "1. MB", ".5 MB", "1 M B", "1 MBs", "5 k",
                   "9223372036854775807 KB", "99999999999999999999"})
    CHECK_FALSE(parse_memunit(bad));
  CHECK(*parse_memunit("8589934591 GB") == 8589934591ULL << 30);  // just under 2^63
  CHECK_FALSE(parse_memunit("8589934592 GB"));                    // 2^63 overflows (tor: INT64_MAX)
}

TEST_CASE("intervals: tor's time units, default seconds", "[config][values][units]") {
  CHECK(*parse_interval("30") == 30s);
  CHECK(*parse_interval("30 seconds") == 30s);
  CHECK(*parse_interval("1 second") == 1s);
  CHECK(*parse_interval("10 minutes") == 600s);
  CHECK(*parse_interval("1 minute") == 60s);
  CHECK(*parse_interval("2 hours") == 7200s);
  CHECK(*parse_interval("1 hour") == 3600s);
  CHECK(*parse_interval("1 day") == 86400s);
  CHECK(*parse_interval("3 days") == 259200s);
  CHECK(*parse_interval("1 week") == 604800s);
  CHECK(*parse_interval("2 weeks") == 1209600s);
  CHECK(*parse_interval("1 month") == 2629728s);
  CHECK(*parse_interval("2 months") == 5259456s);
  CHECK(*parse_interval("5 MINUTES") == 300s);
  CHECK(*parse_interval("1.5 hours") == 5400s);
  CHECK(time_units().size() == 13);
  for (auto bad : {"", "5 min", "5 sec", "5 s", "5 msec", "ten seconds", "69 years", "817 months"})
    CHECK_FALSE(parse_interval(bad));  // 817 months > INT32_MAX seconds
  CHECK(*parse_interval("816 months") == std::chrono::seconds(816LL * 2629728));

  CHECK(*parse_msec_interval("10") == 10ms);
  CHECK(*parse_msec_interval("10 msec") == 10ms);
  CHECK(*parse_msec_interval("1 millisecond") == 1ms);
  CHECK(*parse_msec_interval("3 milliseconds") == 3ms);
  CHECK(*parse_msec_interval("2 seconds") == 2000ms);
  CHECK(*parse_msec_interval("1 second") == 1000ms);
  CHECK(*parse_msec_interval("1 minute") == 60000ms);
  CHECK(*parse_msec_interval("2 minutes") == 120000ms);
  CHECK(*parse_msec_interval("1 hour") == 3600000ms);
  CHECK(*parse_msec_interval("1 hours") == 3600000ms);
  CHECK(*parse_msec_interval("1 day") == 86400000ms);
  CHECK(*parse_msec_interval("1 days") == 86400000ms);
  CHECK(*parse_msec_interval("1 week") == 604800000ms);
  CHECK(*parse_msec_interval("2 weeks") == 1209600000ms);
  CHECK(msec_units().size() == 14);
  CHECK_FALSE(parse_msec_interval("1 month"));  // not in tor's msec table
  CHECK_FALSE(parse_msec_interval("4 weeks"));  // above INT32_MAX ms
}

TEST_CASE("split_list", "[config][values]") {
  CHECK(split_list("accept *:80, reject *:*") == std::vector<std::string>{"accept *:80", "reject *:*"});
  CHECK(split_list(" a ,, b,") == std::vector<std::string>{"a", "b"});
  CHECK(split_list("").empty());
}

TEST_CASE("IP addresses", "[config][address]") {
  auto v4 = parse_ip("192.0.2.7");
  REQUIRE(v4);
  CHECK(*v4 == IpAddress::v4(192, 0, 2, 7));
  CHECK(v4->to_string() == "192.0.2.7");
  auto v6 = parse_ip("2001:DB8::1");
  REQUIRE(v6);
  CHECK_FALSE(v6->is_v4());
  CHECK(v6->bytes[0] == 0x20);
  CHECK(v6->bytes[1] == 0x01);
  CHECK(v6->bytes[15] == 0x01);
  CHECK(v6->to_string() == "2001:db8::1");
  CHECK(*parse_ip("[::1]") == *parse_ip("::1"));
  for (auto bad : {"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "[1.2.3.4]", "::1%eth0", "[::1", "host.example",
                   "1.2.3.4 ", "2001:db8::g"})
    CHECK_FALSE(parse_ip(bad));
}

TEST_CASE("ADDR:PORT and ports", "[config][address]") {
  auto a = parse_addr_port("127.0.0.1:9030");
  REQUIRE(a);
  CHECK(a->addr == IpAddress::v4(127, 0, 0, 1));
  CHECK(a->port == 9030);
  CHECK(a->to_string() == "127.0.0.1:9030");
  auto b = parse_addr_port("[2001:db8::5]:443");
  REQUIRE(b);
  CHECK(b->port == 443);
  CHECK(b->to_string() == "[2001:db8::5]:443");
  for (auto bad : {"127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "2001:db8::5:443", ":80", "[::1]80"})
    CHECK_FALSE(parse_addr_port(bad));
  CHECK(*parse_port("65535") == 65535);
  CHECK(*parse_port("0", true) == 0);
  CHECK_FALSE(parse_port("0"));
}

TEST_CASE("port lines: [ADDR:]PORT|auto [flags]", "[config][address]") {
  auto p = parse_port_config("9001", PortFlags::Listener);
  REQUIRE(p);
  CHECK(p->port == 9001);
  CHECK_FALSE(p->address);
  CHECK(p->enabled());
  auto off = parse_port_config("0", PortFlags::Listener);
  REQUIRE(off);
  CHECK_FALSE(off->enabled());
  auto au = parse_port_config("auto", PortFlags::Listener);
  REQUIRE(au);
  CHECK(au->is_auto);
  CHECK(au->enabled());
  auto aa = parse_port_config("127.0.0.1:auto", PortFlags::Listener);
  REQUIRE(aa);
  CHECK(aa->is_auto);
  CHECK(aa->address == IpAddress::v4(127, 0, 0, 1));
  auto v6 = parse_port_config("[::1]:9001 noadvertise IPv6Only", PortFlags::Listener);
  REQUIRE(v6);
  CHECK(v6->port == 9001);
  CHECK(v6->no_advertise);
  CHECK(v6->ipv6_only);
  auto nl = parse_port_config("9001 NoListen IPv4Only", PortFlags::Listener);
  REQUIRE(nl);
  CHECK(nl->no_listen);
  CHECK(nl->ipv4_only);
  for (auto bad : {"", "x", "65536", "::1:9001", "1.2.3.4:0", "9001 Bogus", "9001 NoListen NoAdvertise",
                   "9001 IPv4Only IPv6Only", "[::1]:9001 IPv4Only"})
    CHECK_FALSE(parse_port_config(bad, PortFlags::Listener));
  CHECK_FALSE(parse_port_config("9001 NoListen", PortFlags::None));
}

TEST_CASE("nicknames", "[config][values]") {
  CHECK(parse_nickname("a"));
  CHECK(parse_nickname("Relay19CharsLong123"));
  CHECK_FALSE(parse_nickname("Relay20CharsLong1234"));
  CHECK_FALSE(parse_nickname(""));
  CHECK_FALSE(parse_nickname("bad_name"));
  CHECK_FALSE(parse_nickname("bad-name"));
}

TEST_CASE("Ed25519 identities: hex or unpadded base64", "[config][values]") {
  // RFC 8032 test 1 public key.
  const auto key = conflux::test::unhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
  auto h = parse_ed25519_id("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
  REQUIRE(h);
  CHECK(std::equal(h->begin(), h->end(), key.begin()));
  // base64 of the same 32 bytes, "=" removed.
  auto b = parse_ed25519_id("11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo");
  REQUIRE(b);
  CHECK(*b == *h);
  CHECK(ed25519_id_to_base64(*h) == "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo");
  CHECK_FALSE(parse_ed25519_id("11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURp"));   // non-canonical last char
  CHECK_FALSE(parse_ed25519_id("11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="));  // padded
  CHECK_FALSE(parse_ed25519_id("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"));   // base64url
  CHECK_FALSE(parse_ed25519_id("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511"));
  CHECK_FALSE(parse_ed25519_id("x75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"));
}

TEST_CASE("Log lines", "[config][values]") {
  auto a = parse_log("notice stdout");
  REQUIRE(a);
  CHECK(a->min == Severity::Notice);
  CHECK(a->max == Severity::Err);
  CHECK(a->dest == LogSpec::Dest::Stdout);
  CHECK(a->accepts(Severity::Warn));
  CHECK_FALSE(a->accepts(Severity::Info));
  auto b = parse_log("info file /var/log/conflux relay.log");
  REQUIRE(b);
  CHECK(b->dest == LogSpec::Dest::File);
  CHECK(b->path == "/var/log/conflux relay.log");
  auto c = parse_log("debug-notice stderr");
  REQUIRE(c);
  CHECK(c->min == Severity::Debug);
  CHECK(c->max == Severity::Notice);
  CHECK(parse_log("info-err syslog")->dest == LogSpec::Dest::Syslog);
  CHECK(parse_log("WARN Stderr")->min == Severity::Warn);
  for (auto bad : {"", "notice", "loud stdout", "err-info stdout", "notice stdout extra", "notice file",
                   "notice nowhere", "[handshake]debug stderr", "info- stdout"})
    CHECK_FALSE(parse_log(bad));
}

TEST_CASE("DirAuthority lines: our former form (an Ed25519 identity) is refused", "[config][values]") {
  auto ours = parse_dir_authority("auth1 orport=9001 127.0.0.1:9030 11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo");
  REQUIRE_FALSE(ours);
  CHECK(ours.error().find("our form with an Ed25519 identity retired") != std::string::npos);
  // With a v3ident, the Ed25519 identity is no RSA fingerprint.
  auto hybrid = parse_dir_authority("auth1 v3ident=DB8EB34B0489A504CA284D48B1E6A42BB7EF46A5 127.0.0.1:9030 "
                                    "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo");
  REQUIRE_FALSE(hybrid);
  CHECK(hybrid.error().find("40-hex-digit RSA fingerprint") != std::string::npos);
  for (auto bad : {"", "auth1", "auth1 127.0.0.1:9030",
                   "bad_nick v3ident=DB8EB34B0489A504CA284D48B1E6A42BB7EF46A5 127.0.0.1:9030 "
                   "FFCB46DB1339DA84674C70D7CB586434C4370441",
                   "a v3ident=AB 127.0.0.1:9030 FFCB46DB1339DA84674C70D7CB586434C4370441",
                   "a 127.0.0.1:9030 FFCB46DB1339DA84674C70D7CB586434C4370441"})
    CHECK_FALSE(parse_dir_authority(bad));
}

TEST_CASE("DirAuthority lines in tor's form", "[config][values]") {
  // As tornet writes them, and as tor's own list prints a fingerprint (groups of four).
  auto t = parse_dir_authority("auth0 orport=19000 no-v2 v3ident=DB8EB34B0489A504CA284D48B1E6A42BB7EF46A5 "
                               "127.0.0.1:19100 E8DABF3B0AEDDB386DD7B66B59A02AAFE1F48731");
  REQUIRE(t);
  CHECK(t->or_port == 19000);
  CHECK(t->dir == *parse_addr_port("127.0.0.1:19100"));
  CHECK(t->v3ident[0] == 0xDB);
  CHECK(t->rsa_identity[19] == 0x31);
  auto spaced = parse_dir_authority("moria1 orport=9201 v3ident=F533C81CEF0BC0267857C99B2F471ADF249FA232 "
                                    "128.31.0.39:9231 1A25 C629 1F9B 3E6E 7558 3D9E 0EAB 7F02 6E21 6FC2");
  REQUIRE(spaced);
  CHECK(spaced->rsa_identity[0] == 0x1A);
  // Without v3ident= (tor allows that of a bridge authority alone, which we
  // do not support) the line is refused, saying what it lacks.
  auto no_v3ident = parse_dir_authority("Serge orport=9001 bridge 127.0.0.1:9030 FFCB46DB1339DA84674C70D7CB586434C4370441");
  REQUIRE_FALSE(no_v3ident);
  CHECK(no_v3ident.error().find("v3ident=HEX40") != std::string::npos);
  CHECK(parse_dir_authority("x hs bridge weight=10 ipv6=[::1]:9050 v3ident=F533C81CEF0BC0267857C99B2F471ADF249FA232 "
                            "127.0.0.1:1 1A25C6291F9B3E6E75583D9E0EAB7F026E216FC2"));
  for (auto bad : {"x v3ident=F533C81CEF0BC0267857C99B2F471ADF249FA232 127.0.0.1:1 1A25C629",
                   "x v3ident=F533C81CEF0BC0267857C99B2F471ADF249FA232 127.0.0.1:1",
                   "x v3ident=F533C81CEF0BC0267857C99B2F471ADF249FA232 v3ident=F533C81CEF0BC0267857C99B2F471ADF249FA232 "
                   "127.0.0.1:1 1A25C6291F9B3E6E75583D9E0EAB7F026E216FC2",
                   "x frob v3ident=F533C81CEF0BC0267857C99B2F471ADF249FA232 127.0.0.1:1 1A25C6291F9B3E6E75583D9E0EAB7F026E216FC2"})
    CHECK_FALSE(parse_dir_authority(bad));
}

TEST_CASE("MyFamily members", "[config][values]") {
  CHECK(parse_family_member("relay2"));
  CHECK(parse_family_member("$FFCB46DB1339DA84674C70D7CB586434C4370441"));
  CHECK(parse_family_member("$FFCB46DB1339DA84674C70D7CB586434C4370441~relay2"));
  CHECK(parse_family_member("11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo"));
  CHECK_FALSE(parse_family_member("$FFCB46DB"));
  CHECK_FALSE(parse_family_member("$FFCB46DB1339DA84674C70D7CB586434C4370441!x"));
  CHECK_FALSE(parse_family_member("not-a-nick"));
}
