// The control protocol's sans-I/O pieces (common/control): reading command
// lines and '+' data, arguments and QuotedStrings, replies, tor's hashed
// passwords (checked against values `tor --hash-password` printed) and the
// authentication gate with COOKIE, SAFECOOKIE, HASHEDPASSWORD and NULL.
#include <catch2/catch.hpp>
#include <string>

#include "conflux/bytes/hex.hpp"
#include "conflux/control/control_args.hpp"
#include "conflux/control/control_auth.hpp"
#include "conflux/control/control_getinfo.hpp"
#include "conflux/control/control_password.hpp"
#include "conflux/control/control_reader.hpp"
#include "conflux/control/control_reply.hpp"
#include "conflux/control/control_session.hpp"
#include "conflux/crypto/digest.hpp"

using namespace conflux;
using namespace conflux::control;

namespace {

std::vector<ControlCommand> read_all(ControlReader& r, std::string_view text) {
  auto got = r.feed(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  REQUIRE_FALSE(got.error);
  return got.commands;
}

ControlCommand cmd(std::string keyword, std::string args = {}) { return ControlCommand{std::move(keyword), std::move(args), {}}; }

ControlCookie fill(std::uint8_t b) {
  ControlCookie c;
  c.fill(b);
  return c;
}

}  // namespace

TEST_CASE("control reader: lines, case, bare LF, pieces and '+' data", "[control]") {
  ControlReader r;
  auto got = read_all(r, "getinfo version\r\nSIGNAL NEWNYM\nGETCONF");
  REQUIRE(got.size() == 2);
  CHECK(got[0] == cmd("GETINFO", "version"));
  CHECK(got[1] == cmd("SIGNAL", "NEWNYM"));
  CHECK(r.buffered() == 7);
  got = read_all(r, " SocksPort\r\n");
  REQUIRE(got.size() == 1);
  CHECK(got[0] == cmd("GETCONF", "SocksPort"));

  got = read_all(r, "+LOADCONF\r\nSocksPort 9050\r\n..leading dot\r\n\r\n.\r\nQUIT\r\n");
  REQUIRE(got.size() == 2);
  CHECK(got[0].keyword == "LOADCONF");
  CHECK(got[0].data == std::optional<std::string>("SocksPort 9050\n.leading dot\n"));
  CHECK(got[1] == cmd("QUIT"));
}

TEST_CASE("control reader: bounded, and a bad keyword ends the connection", "[control]") {
  ControlReader r(ControlReaderLimits{16, 32});
  const std::string first = "QUIT\r\n" + std::string(17, 'A');
  auto long_line = r.feed(std::span(reinterpret_cast<const std::uint8_t*>(first.data()), first.size()));
  CHECK(long_line.commands.size() == 1);  // what came before the error is still answered
  CHECK(long_line.error == ControlReadError::LineTooLong);
  CHECK(read_all(r, "QUIT\r\n").empty());  // nothing more is read
  CHECK(r.buffered() == 0);

  ControlReader d(ControlReaderLimits{64, 8});
  const std::string text = "+LOADCONF\r\n0123456789\r\n";
  auto big = d.feed(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  CHECK(big.error == ControlReadError::DataTooLong);

  for (const std::string bad : {"\r\n", " GETINFO\r\n", "GET\"INFO\r\n", "+\r\n"}) {
    ControlReader b;
    auto e = b.feed(std::span(reinterpret_cast<const std::uint8_t*>(bad.data()), bad.size()));
    CHECK(e.error == ControlReadError::BadKeyword);
  }
}

TEST_CASE("control arguments: words, Key=Value and QuotedStrings", "[control]") {
  auto a = parse_control_args(R"(SAFECOOKIE  ab01 Key=v "q \"x\" \\ \n\101" K2="a b")");
  REQUIRE(a);
  REQUIRE(a->size() == 5);
  CHECK(a->at(0) == ControlArg{std::nullopt, "SAFECOOKIE", false});
  CHECK(a->at(1).value == "ab01");
  CHECK(a->at(2) == ControlArg{"Key", "v", false});
  CHECK(a->at(3) == ControlArg{std::nullopt, "q \"x\" \\ \nA", true});
  CHECK(a->at(4) == ControlArg{"K2", "a b", true});
  CHECK(parse_control_args("")->empty());
  CHECK(parse_control_args(R"("open)").error() == ControlArgError::UnterminatedQuote);
  CHECK(parse_control_args(R"("a\)").error() == ControlArgError::UnterminatedQuote);
  CHECK(parse_control_args(R"("a\9")").error() == ControlArgError::BadEscape);
  CHECK(parse_control_args(R"("a\400")").error() == ControlArgError::BadEscape);
  CHECK(parse_control_args(R"("a"b)").error() == ControlArgError::JunkAfterQuote);
  CHECK(parse_control_args(R"(a"b")").error() == ControlArgError::JunkAfterQuote);

  const std::string raw = std::string("say \"hi\"\\\n\t\r") + char(1) + char(0xff);
  CHECK(quote_control_string(raw) == R"("say \"hi\"\\\n\t\r\001\377")");
  auto back = parse_control_args(quote_control_string(raw));
  REQUIRE(back);
  CHECK(back->at(0).value == raw);
}

TEST_CASE("control replies: mid lines, data dot-stuffed, end line", "[control]") {
  const std::string r = ControlReply()
                            .mid(250, "PROTOCOLINFO 1")
                            .data(250, "config-text", "SocksPort 9050\n.hidden\n")
                            .end(250, "OK");
  CHECK(r == "250-PROTOCOLINFO 1\r\n250+config-text=\r\nSocksPort 9050\r\n..hidden\r\n.\r\n250 OK\r\n");
  CHECK(control_line(514, "Authentication required.") == "514 Authentication required.\r\n");
  // An event with a data block, as tor writes NEWCONSENSUS: no '=' after the keyword.
  const std::string e = ControlReply().block(650, "NEWCONSENSUS", "r a\ns Fast\n").end(650, "OK");
  CHECK(e == "650+NEWCONSENSUS\r\nr a\r\ns Fast\r\n.\r\n650 OK\r\n");
}

TEST_CASE("hashed control passwords are tor's", "[control]") {
  // Printed by Debian's tor 0.4.9 `tor --hash-password ...` on 2026-11-26.
  CHECK(control_password_matches("16:F3EDDC964FCA28F860DB956A9003EE52C48ECF2C2742EE5C7A8C1F0019", "correct horse"));
  CHECK(control_password_matches("16:DAF36E07449D913A6012C4C4800D5E5515B0ED5D0816D6111CB175C7CF", ""));
  CHECK_FALSE(control_password_matches("16:F3EDDC964FCA28F860DB956A9003EE52C48ECF2C2742EE5C7A8C1F0019", "correct"));
  // Ours round-trips, and is what tor computes for that salt and count.
  const std::array<std::uint8_t, 8> salt{0xF3, 0xED, 0xDC, 0x96, 0x4F, 0xCA, 0x28, 0xF8};
  CHECK(hash_control_password("correct horse", salt) == "16:F3EDDC964FCA28F860DB956A9003EE52C48ECF2C2742EE5C7A8C1F0019");
  for (const std::string bad : {"", "16:", "15:F3ED", "16:F3EDDC964FCA28F860DB956A9003EE52C48ECF2C2742EE5C7A8C1F00",
                                "16:ZZEDDC964FCA28F860DB956A9003EE52C48ECF2C2742EE5C7A8C1F0019"}) {
    CHECK_FALSE(valid_hashed_control_password(bad));
    CHECK_FALSE(control_password_matches(bad, "correct horse"));
  }
}

TEST_CASE("control authentication: the gate before AUTHENTICATE", "[control]") {
  ControlAuthConfig config;
  config.cookie = fill(7);
  config.cookie_file = "/var/lib/conflux/control_auth_cookie";
  config.hashed_passwords = {"16:F3EDDC964FCA28F860DB956A9003EE52C48ECF2C2742EE5C7A8C1F0019"};
  config.version = "0.4.9.11";
  ControlAuth auth(config, [] { return fill(9); });

  auto info = auth.on_command(cmd("PROTOCOLINFO", "1"));
  REQUIRE(info);
  CHECK(info->reply ==
        "250-PROTOCOLINFO 1\r\n250-AUTH METHODS=COOKIE,SAFECOOKIE,HASHEDPASSWORD "
        "COOKIEFILE=\"/var/lib/conflux/control_auth_cookie\"\r\n250-VERSION Tor=\"0.4.9.11\"\r\n250 OK\r\n");
  CHECK_FALSE(info->close);
  SECTION("a second PROTOCOLINFO closes") { CHECK(auth.on_command(cmd("PROTOCOLINFO"))->close); }
  SECTION("anything else closes with 514") {
    auto a = auth.on_command(cmd("GETINFO", "version"));
    REQUIRE(a);
    CHECK(a->reply == "514 Authentication required.\r\n");
    CHECK(a->close);
    CHECK_FALSE(auth.authenticated());
  }
  SECTION("a wrong secret closes with 515") {
    auto a = auth.on_command(cmd("AUTHENTICATE", bytes::to_hex(fill(8))));
    CHECK(a->reply.rfind("515 ", 0) == 0);
    CHECK(a->close);
  }
  SECTION("not hex, not quoted: 515") { CHECK(auth.on_command(cmd("AUTHENTICATE", "correct"))->close); }
  SECTION("the cookie") {
    CHECK(auth.on_command(cmd("AUTHENTICATE", bytes::to_hex(fill(7))))->reply == "250 OK\r\n");
    CHECK(auth.authenticated());
    CHECK_FALSE(auth.on_command(cmd("GETINFO", "version")));  // the caller's now
    CHECK(auth.on_command(cmd("QUIT"))->close);
  }
  SECTION("the password, quoted") {
    CHECK(auth.on_command(cmd("AUTHENTICATE", "\"correct horse\""))->reply == "250 OK\r\n");
    CHECK(auth.authenticated());
  }
}

TEST_CASE("control authentication: SAFECOOKIE", "[control]") {
  ControlAuthConfig config;
  config.cookie = fill(7);
  ControlAuth auth(config, [] { return fill(9); });
  const ControlCookie client_nonce = fill(3);
  auto challenge = auth.on_command(cmd("AUTHCHALLENGE", "SAFECOOKIE " + bytes::to_hex(client_nonce)));
  REQUIRE(challenge);
  REQUIRE_FALSE(challenge->close);
  // What a controller computes (control-spec 3.24).
  std::vector<std::uint8_t> msg(32, 7);
  msg.insert(msg.end(), client_nonce.begin(), client_nonce.end());
  msg.insert(msg.end(), 32, 9);
  auto key = [](std::string_view k) { return bytes::ByteSpan(reinterpret_cast<const std::uint8_t*>(k.data()), k.size()); };
  const auto server_hash = crypto::hmac_sha256(key("Tor safe cookie authentication server-to-controller hash"), msg);
  const auto client_hash = crypto::hmac_sha256(key("Tor safe cookie authentication controller-to-server hash"), msg);
  CHECK(challenge->reply == "250 AUTHCHALLENGE SERVERHASH=" + bytes::to_hex(server_hash, true) +
                                " SERVERNONCE=" + bytes::to_hex(fill(9), true) + "\r\n");
  SECTION("the client's hash authenticates") {
    CHECK(auth.on_command(cmd("AUTHENTICATE", bytes::to_hex(client_hash)))->reply == "250 OK\r\n");
    CHECK(auth.authenticated());
  }
  SECTION("the bare cookie does not, once challenged") {
    CHECK(auth.on_command(cmd("AUTHENTICATE", bytes::to_hex(fill(7))))->close);
    CHECK_FALSE(auth.authenticated());
  }
  SECTION("another command after the challenge closes") { CHECK(auth.on_command(cmd("PROTOCOLINFO"))->close); }
  SECTION("a short nonce is refused") {
    ControlAuth again(config, [] { return fill(9); });
    CHECK(again.on_command(cmd("AUTHCHALLENGE", "SAFECOOKIE 0102"))->close);
  }
}

TEST_CASE("control authentication: NULL when no method is set, no cookie, no SAFECOOKIE", "[control]") {
  ControlAuth open(ControlAuthConfig{}, [] { return fill(9); });
  CHECK(open.on_command(cmd("PROTOCOLINFO"))->reply.find("AUTH METHODS=NULL\r\n") != std::string::npos);
  CHECK(open.on_command(cmd("AUTHENTICATE"))->reply == "250 OK\r\n");
  CHECK(open.authenticated());

  ControlAuthConfig pw;
  pw.hashed_passwords = {"16:DAF36E07449D913A6012C4C4800D5E5515B0ED5D0816D6111CB175C7CF"};
  ControlAuth gate(pw, [] { return fill(9); });
  CHECK(gate.on_command(cmd("AUTHCHALLENGE", "SAFECOOKIE " + bytes::to_hex(fill(3))))->close);
}

namespace {

struct EchoCommands final : ControlCommands {
  ControlAnswer on_command(const ControlCommand& c) override {
    seen.push_back(c.keyword);
    return {control_line(250, "OK"), c.keyword == "SIGNAL" && c.args == "SHUTDOWN"};
  }
  const std::set<std::string>& event_names() const override { return names; }
  std::set<std::string> names{"BW", "CIRC", "STREAM"};
  std::vector<std::string> seen;
};

std::string feed(ControlSession& s, std::string_view text, bool* closed = nullptr) {
  auto out = s.on_bytes(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  if (closed != nullptr) *closed = out.close;
  return out.bytes;
}

}  // namespace

TEST_CASE("control session: the gate first, SETEVENTS kept, the rest to the program", "[control]") {
  EchoCommands program;
  ControlSession s(ControlAuthConfig{}, [] { return fill(1); }, program);
  CHECK_FALSE(s.wants("BW"));
  CHECK(feed(s, "AUTHENTICATE\r\nSETEVENTS bw circ\r\nGETINFO version\r\n") == "250 OK\r\n250 OK\r\n250 OK\r\n");
  CHECK(program.seen == std::vector<std::string>{"GETINFO"});
  CHECK(s.wants("BW"));
  CHECK(s.wants("CIRC"));
  CHECK_FALSE(s.wants("STREAM"));
  // All or nothing: an unknown name keeps the old subscription.
  CHECK(feed(s, "SETEVENTS STREAM FROB\r\n") == "552 Unrecognized event \"FROB\"\r\n");
  CHECK(s.wants("BW"));
  CHECK(feed(s, "SETEVENTS EXTENDED STREAM\r\n") == "250 OK\r\n");
  CHECK(s.wants("STREAM"));
  CHECK_FALSE(s.wants("BW"));
  bool closed = false;
  CHECK(feed(s, "SIGNAL SHUTDOWN\r\nGETINFO after\r\n", &closed) == "250 OK\r\n");
  CHECK(closed);
  CHECK_FALSE(s.wants("STREAM"));
  CHECK(feed(s, "GETINFO more\r\n").empty());
}

TEST_CASE("control session: TAKEOWNERSHIP and DROPOWNERSHIP are the connection's own", "[control]") {
  EchoCommands program;
  ControlSession s(ControlAuthConfig{}, [] { return fill(1); }, program);
  bool closed = false;
  // Not before authentication (514, and the connection closes).
  ControlAuthConfig password;
  password.hashed_passwords = {"16:00"};
  ControlSession stranger(password, [] { return fill(1); }, program);
  CHECK(feed(stranger, "TAKEOWNERSHIP\r\n", &closed).starts_with("514 "));
  CHECK_FALSE(stranger.owner());
  CHECK(feed(s, "AUTHENTICATE\r\nTAKEOWNERSHIP\r\n") == "250 OK\r\n250 OK\r\n");
  CHECK(s.owner());
  CHECK(feed(s, "DROPOWNERSHIP\r\n") == "250 OK\r\n");
  CHECK_FALSE(s.owner());
  CHECK(program.seen.empty());
}

TEST_CASE("control session: unreadable input is answered, then the connection closes", "[control]") {
  EchoCommands program;
  ControlSession s(ControlAuthConfig{}, [] { return fill(1); }, program);
  bool closed = false;
  CHECK(feed(s, "AUTHENTICATE\r\n.bad\r\nGETINFO x\r\n", &closed) == "250 OK\r\n510 not a command keyword\r\n");
  CHECK(closed);
  CHECK(program.seen.empty());
}

TEST_CASE("GETINFO: exact keys, prefixes, data blocks, and one unknown key fails all", "[control]") {
  ControlInfo info;
  info.add("version", "The version.", [](std::string_view) { return std::optional<std::string>("0.4.9.11"); });
  info.add("config-text", "The torrc.", [](std::string_view) { return std::optional<std::string>("SocksPort 9050\n.x\n"); });
  info.add("address", "Our address.", [](std::string_view) { return std::optional<std::string>(); });
  info.add_prefix("ns/id/", "Router status by <identity>.", [](std::string_view id) {
    return id == "AB" ? std::optional<std::string>("r relay1 ...") : std::nullopt;
  });
  CHECK(info.getinfo("version").reply == "250-version=0.4.9.11\r\n250 OK\r\n");
  CHECK(info.getinfo("version config-text ns/id/AB").reply ==
        "250-version=0.4.9.11\r\n250+config-text=\r\nSocksPort 9050\r\n..x\r\n.\r\n250-ns/id/AB=r relay1 ...\r\n250 OK\r\n");
  CHECK(info.getinfo("version frob").reply == "552 Unrecognized key \"frob\"\r\n");
  CHECK(info.getinfo("ns/id/").reply == "552 Unrecognized key \"ns/id/\"\r\n");
  CHECK(info.getinfo("ns/id/CD").reply == "551 Unable to answer \"ns/id/CD\" now\r\n");
  CHECK(info.getinfo("address").reply == "551 Unable to answer \"address\" now\r\n");
  CHECK(info.getinfo("").reply.rfind("512 ", 0) == 0);
  const auto names = info.getinfo("info/names").reply;
  CHECK(names.find("address -- Our address.\r\n") != std::string::npos);
  CHECK(names.find("ns/id/* -- Router status by <identity>.\r\n") != std::string::npos);
  CHECK(names.find("info/names -- ") != std::string::npos);
  // A prefix with a check of its argument: the check's message is a 551,
  // before the provider is asked (tor's helper failing with an errmsg).
  info.add_prefix(
      "md/id/", "Microdescriptor by <identity>.", [](std::string_view) { return std::optional<std::string>(); },
      ControlInfo::Missing::Unrecognized,
      [](std::string_view id) { return id.size() == 2 ? std::nullopt : std::optional<std::string>("Bad id"); });
  CHECK(info.getinfo("md/id/ABC").reply == "551 Bad id\r\n");
  CHECK(info.getinfo("md/id/AB").reply == "552 Unrecognized key \"md/id/AB\"\r\n");
}
