// The relay option schema: defaults, each option's validation with its line,
// unknown options, cross-option rules, and loading through the layers.
#include <catch2/catch.hpp>

#include "conflux/config/relay_options.hpp"

using namespace conflux::config;
using namespace std::chrono_literals;

namespace {

constexpr const char* kAuthId = "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo";
// The two lines every relay config needs; tests add theirs after them.
const std::string kBase = "DataDirectory /var/lib/conflux\nORPort 9001\n";

conflux::Result<RelayOptions, ConfigErrors> build(const std::string& text, const UserEnvironment& env = {}) {
  auto entries = parse_torrc_text(text, "torrc");
  if (!entries) FAIL("parse error: " << entries.error().to_string());
  return relay_options_from_entries(*entries, "torrc", env);
}

RelayOptions ok(const std::string& extra) {
  auto r = build(kBase + extra);
  if (!r) FAIL("unexpected error: " << r.error().front().to_string());
  return *r;
}

// The single error of a config whose offending line is `extra` (line 3).
ConfigError bad(const std::string& extra) {
  auto r = build(kBase + extra);
  REQUIRE_FALSE(r);
  REQUIRE(r.error().size() == 1);
  return r.error().front();
}

}  // namespace

TEST_CASE("relay options: defaults", "[config][relay]") {
  auto o = ok("");
  CHECK(o.nickname == "Unnamed");
  CHECK(o.data_directory == "/var/lib/conflux");
  REQUIRE(o.or_ports.size() == 1);
  CHECK(o.or_ports[0].port == 9001);
  CHECK(o.dir_ports.empty());
  CHECK(o.addresses.empty());
  REQUIRE(o.logs.size() == 1);  // tor: notice and above to stdout
  CHECK(o.logs[0] == LogSpec{Severity::Notice, Severity::Err, LogSpec::Dest::Stdout, ""});
  CHECK(o.exit_relay == AutoBool::False);
  CHECK_FALSE(o.is_exit());
  CHECK(o.exit_policy.empty());
  CHECK(o.exit_policy_reject_private);
  CHECK_FALSE(o.ipv6_exit);
  CHECK_FALSE(o.bridge_relay);
  CHECK_FALSE(o.authoritative_directory);
  CHECK(o.dir_authorities.empty());
  CHECK(o.bandwidth_rate == 1073741824);
  CHECK(o.bandwidth_burst == 1073741824);
  CHECK(o.max_circuits_per_channel == 1024);
  CHECK(o.max_channels == 4096);
  CHECK(o.contact_info.empty());
  CHECK(o.my_family.empty());
  CHECK(o.consensus_interval == 300s);
  CHECK(o.conflux_enabled == AutoBool::Auto);
  CHECK(o.circuit_priority_halflife == 30.0);
  CHECK(o.schedulers == std::vector<SchedulerKind>{SchedulerKind::Kist, SchedulerKind::KistLite,
                                                   SchedulerKind::Vanilla});
  CHECK(o.kist_sched_run_interval == 0ms);
  CHECK(o.kist_sched_hold_min_cells == 8);
  CHECK(o.kist_limit == KistLimitKind::Deployed);
  CHECK_FALSE(o.kist_global_limit);
  CHECK(o.scheduler_sample_cells == 100);
  CHECK(o.metrics_ports.empty());
  REQUIRE(o.warnings.size() == 1);  // no DirAuthority
  CHECK(o.warnings[0].message.find("DirAuthority") != std::string::npos);
}

TEST_CASE("relay options: a full configuration", "[config][relay]") {
  auto o = ok(std::string("nickname MyRelay\n") +
              "Address 192.0.2.1\nAddress [2001:db8::1]\n"
              "ORPort [2001:db8::1]:9001 IPv6Only\n"
              "DirPort 9030\n"
              "Log info-warn file /var/log/conflux.log\nLog err stderr\n"
              "ExitRelay 1\n"
              "ExitPolicy accept *:80, accept *:443\nExitPolicy reject *:*\n"
              "ExitPolicyRejectPrivate 0\nIPv6Exit 1\nBridgeRelay 0\nAuthoritativeDirectory 1\n"
              "DirAuthority auth1 orport=9001 v3ident=F533C81CEF0BC0267857C99B2F471ADF249FA232 127.0.0.1:9030 "
              "1A25C6291F9B3E6E75583D9E0EAB7F026E216FC2\n"
              "BandwidthRate 100 KBytes\nBandwidthBurst 1 MB\n"
              "MaxCircuitsPerChannel 10\nMaxChannels 20\n"
              "ContactInfo ops <ops at example dot org>\n"
              "MyFamily relay2, $FFCB46DB1339DA84674C70D7CB586434C4370441\nMyFamily relay3\n"
              "V3AuthVotingInterval 1 minute\n"
              "RunAsDaemon 0\nConfluxEnabled 1\nCircuitPriorityHalflife 30\n"
              "Schedulers Vanilla, KIST\nKISTSchedRunInterval 10 msec\nKISTSchedHoldMinCells 0\nKISTLimit original\n"
              "KISTGlobalLimit 1\n"
              "SchedulerSampleCells 10\n"
              "MetricsPort 9035 prometheus\n");
  CHECK(o.nickname == "MyRelay");
  REQUIRE(o.addresses.size() == 2);
  CHECK(o.addresses[0] == IpAddress::v4(192, 0, 2, 1));
  REQUIRE(o.or_ports.size() == 2);
  CHECK(o.or_ports[1].ipv6_only);
  REQUIRE(o.dir_ports.size() == 1);
  REQUIRE(o.logs.size() == 2);
  CHECK(o.logs[0].max == Severity::Warn);
  CHECK(o.logs[0].path == "/var/log/conflux.log");
  CHECK(o.logs[1].dest == LogSpec::Dest::Stderr);
  CHECK(o.is_exit());
  REQUIRE(o.exit_policy.size() == 3);
  CHECK(o.exit_policy[0] == PolicyLine{"accept *:80", {"torrc", 11}});
  CHECK(o.exit_policy[1] == PolicyLine{"accept *:443", {"torrc", 11}});
  CHECK(o.exit_policy[2] == PolicyLine{"reject *:*", {"torrc", 12}});
  CHECK_FALSE(o.exit_policy_reject_private);
  CHECK(o.ipv6_exit);
  CHECK(o.authoritative_directory);
  REQUIRE(o.dir_authorities.size() == 1);
  CHECK(o.dir_authorities[0].or_port == 9001);
  CHECK(o.bandwidth_rate == 102400);
  CHECK(o.bandwidth_burst == 1048576);
  CHECK(o.max_circuits_per_channel == 10);
  CHECK(o.max_channels == 20);
  CHECK(o.contact_info == "ops <ops at example dot org>");
  CHECK(o.my_family == std::vector<std::string>{"relay2", "$FFCB46DB1339DA84674C70D7CB586434C4370441", "relay3"});
  CHECK(o.consensus_interval == 60s);
  CHECK(o.conflux_enabled == AutoBool::True);
  CHECK(o.circuit_priority_halflife == 30.0);
  CHECK(o.schedulers == std::vector<SchedulerKind>{SchedulerKind::Vanilla, SchedulerKind::Kist});
  CHECK(o.kist_sched_run_interval == 10ms);
  CHECK(o.kist_sched_hold_min_cells == 0);
  CHECK(o.kist_limit == KistLimitKind::Original);
  CHECK(o.kist_global_limit);
  CHECK(o.scheduler_sample_cells == 10);
  REQUIRE(o.metrics_ports.size() == 1);
  CHECK(o.metrics_ports[0].port == 9035);
  CHECK(o.metrics_ports[0].address == IpAddress::v4(127, 0, 0, 1));
  CHECK(o.warnings.empty());
}

TEST_CASE("relay options: each option's errors carry its line", "[config][relay]") {
  struct Case {
    const char* line;
    const char* fragment;
  };
  const Case cases[] = {
      {"Nickname this_is_bad", "Nickname: invalid nickname"},
      {"Nickname ThisNicknameIsTooLong", "Nickname"},
      {"Address relay.example.org", "Address: not an IP address"},
      {"ORPort 70000", "ORPort: invalid port"},
      {"ORPort 9001 Sideways", "ORPort: unknown port flag"},
      {"DirPort x", "DirPort"},
      {"Log loud stdout", "Log: unknown log severity"},
      {"Log notice", "Log"},
      {"ExitRelay yes", "ExitRelay: expected 0, 1 or auto"},
      {"ExitPolicyRejectPrivate 2", "ExitPolicyRejectPrivate: expected 0 or 1"},
      {"IPv6Exit true", "IPv6Exit"},
      {"BridgeRelay auto", "BridgeRelay"},
      {"AuthoritativeDirectory 01", "AuthoritativeDirectory"},
      {"DirAuthority auth1 127.0.0.1:9030 nothex", "DirAuthority"},
      {"BandwidthRate 10 furlongs", "BandwidthRate: unknown unit"},
      {"BandwidthRate 3 GB", "BandwidthRate: at most 2147483647"},
      {"BandwidthBurst lots", "BandwidthBurst"},
      {"MaxCircuitsPerChannel 0", "MaxCircuitsPerChannel: integer out of range"},
      {"MaxChannels 99999999", "MaxChannels"},
      {"MyFamily relay2, not-a-nick", "MyFamily: invalid MyFamily member"},
      {"ConsensusInterval 11 seconds", "ConsensusInterval: must divide 24 hours"},
      {"ConsensusInterval 5", "ConsensusInterval: must be between"},
      {"V3AuthVotingInterval 2 days", "ConsensusInterval: must be between"},
      {"RunAsDaemon 1", "RunAsDaemon: not supported"},
      {"RunAsDaemon maybe", "RunAsDaemon"},
      {"ConfluxEnabled 2", "ConfluxEnabled"},
      {"CircuitPriorityHalflife fast", "CircuitPriorityHalflife: expected a number"},
      {"CircuitPriorityHalflife -2", "CircuitPriorityHalflife"},
      {"Schedulers KIST,Fancy", "Schedulers: unknown scheduler"},
      {"Schedulers ,", "Schedulers: no scheduler"},
      {"KISTSchedRunInterval 101 msec", "KISTSchedRunInterval: at most 100"},
      {"KISTSchedRunInterval 1 month", "KISTSchedRunInterval: unknown unit"},
      {"KISTSchedHoldMinCells 100001", "KISTSchedHoldMinCells: "},
      {"KISTSchedHoldMinCells some", "KISTSchedHoldMinCells: "},
      {"KISTLimit Newest", "KISTLimit: unknown KIST limit 'Newest' (Deployed, Original)"},
      {"KISTGlobalLimit yes", "KISTGlobalLimit: expected 0 or 1"},
      {"SchedulerSampleCells 1000001", "SchedulerSampleCells: "},
      {"SchedulerSampleCells -1", "SchedulerSampleCells: "},
      {"MetricsPort 9035 json", "MetricsPort"},
      {"ConsensusParams cc_alg", "ConsensusParams: 'cc_alg' is not K=V"},
      {"ConsensusParams cc-alg=2", "ConsensusParams: 'cc-alg' is not a parameter name"},
      {"ConsensusParams cc_alg=2 cc_alg=0", "ConsensusParams: cc_alg is given twice"},
      {"ConsensusParams cc_alg=2147483648", "ConsensusParams: cc_alg: "},
      {"OverrideConsensusParams cc_alg=two", "OverrideConsensusParams: cc_alg: "},
      {"TestingDirAuthVoteGuard relay1,{de}", "TestingDirAuthVoteGuard: country codes ('{de}') are not supported"},
      {"TestingDirAuthVoteGuard 10.0.0.0/8", "TestingDirAuthVoteGuard: address patterns ('10.0.0.0/8')"},
      {"TestingDirAuthVoteExit *", "TestingDirAuthVoteExit: address patterns ('*')"},
      {"TestingDirAuthVoteGuard not-a-nick", "TestingDirAuthVoteGuard: malformed entry 'not-a-nick'"},
      {"TestingDirAuthVoteGuard $FFCB46DB1339DA84674C70D7CB586434C437044", "TestingDirAuthVoteGuard: malformed"},
      {"TestingDirAuthVoteGuard $FFCB46DB1339DA84674C70D7CB586434C4370441=bad-nick",
       "TestingDirAuthVoteGuard: malformed"},
      {"TestingDirAuthVoteGuardIsStrict 2", "TestingDirAuthVoteGuardIsStrict: expected 0 or 1"},
      {"TestingDirAuthVoteExitIsStrict yes", "TestingDirAuthVoteExitIsStrict: expected 0 or 1"},
  };
  for (const auto& c : cases) {
    INFO(c.line);
    auto e = bad(c.line);
    CHECK(e.file == "torrc");
    CHECK(e.line == 3);
    CHECK(e.message.find(c.fragment) != std::string::npos);
  }
}

TEST_CASE("relay options: unknown options are rejected with their line", "[config][relay]") {
  auto r = build(kBase + "Nickname ok\nSocksPort 9050\n\nNotAnOption 1\n");
  REQUIRE_FALSE(r);
  REQUIRE(r.error().size() == 2);
  CHECK(r.error()[0].to_string() == "torrc:4: unknown option 'SocksPort'");
  CHECK(r.error()[1].to_string() == "torrc:6: unknown option 'NotAnOption'");
  auto inc = build(kBase + "%include /etc/x\n");
  REQUIRE_FALSE(inc);
  CHECK(inc.error()[0].line == 3);
}

TEST_CASE("relay options: DataDirectory defaults as tor's, with our name in tor's place", "[config][relay]") {
  CHECK(default_relay_data_directory({true, "/root"}) == "/var/lib/conflux");
  CHECK(default_relay_data_directory({false, "/home/u"}) == "/home/u/.conflux");
  CHECK(default_relay_data_directory({false, "/home/u/"}) == "/home/u/.conflux");
  CHECK(default_relay_data_directory({false, ""}).empty());
  // The relay's default never meets the proxy's: both can run on one machine.
  CHECK(default_relay_data_directory({true, ""}) != default_proxy_data_directory({true, ""}));
  CHECK(build("ORPort 9001\n", UserEnvironment{true, "/root"})->data_directory == "/var/lib/conflux");
  CHECK(build("ORPort 9001\n", UserEnvironment{false, "/home/u"})->data_directory == "/home/u/.conflux");
  // An empty value restores the default (tor's rule); a given one wins.
  CHECK(build(kBase + "DataDirectory\n", UserEnvironment{false, "/home/u"})->data_directory == "/home/u/.conflux");
  CHECK(build(kBase, UserEnvironment{true, "/root"})->data_directory == "/var/lib/conflux");
  CHECK(build("DataDirectory /srv/r\nORPort 9001\n", UserEnvironment{true, "/root"})->data_directory == "/srv/r");
}

TEST_CASE("relay options: required options and cross-option rules", "[config][relay]") {
  SECTION("DataDirectory and ORPort are required") {
    auto r = build("Nickname x\n");
    REQUIRE_FALSE(r);
    REQUIRE(r.error().size() == 2);
    CHECK(r.error()[0].to_string() == "torrc: DataDirectory is required: there is no default without HOME");
    CHECK(r.error()[1].message.find("ORPort is required") != std::string::npos);
    auto off = build("DataDirectory /d\nORPort 0\n");
    REQUIRE_FALSE(off);
    CHECK(off.error()[0].line == 2);
  }
  SECTION("burst below rate points at the burst line, or at the rate line") {
    auto e = bad("BandwidthBurst 100 KB\nBandwidthRate 200 KB\n");
    CHECK(e.line == 3);
    CHECK(e.message.find("BandwidthBurst (102400) must be at least BandwidthRate (204800)") != std::string::npos);
    auto r = build(kBase + "BandwidthRate 2000 MB\n");
    REQUIRE_FALSE(r);
    CHECK(r.error()[0].line == 3);
    CHECK(ok("BandwidthRate 1 MB\nBandwidthBurst 1 MB\n").bandwidth_burst == 1048576);
  }
  SECTION("two addresses of one family") {
    CHECK(bad("Address 192.0.2.1\nAddress 192.0.2.2\n").line == 4);
  }
  SECTION("bridge authority, authority without DirPort, duplicate authorities") {
    CHECK(bad("AuthoritativeDirectory 1\nDirPort 9030\nBridgeRelay 1\n").message.find("BridgeRelay") !=
          std::string::npos);
    CHECK(bad("AuthoritativeDirectory 1\n").message.find("DirPort") != std::string::npos);
    const std::string fp = " 127.0.0.1:1 1A25C6291F9B3E6E75583D9E0EAB7F026E216FC2\n";
    auto dup = bad("DirAuthority a v3ident=F533C81CEF0BC0267857C99B2F471ADF249FA232" + fp +
                   "DirAuthority b v3ident=F533C81CEF0BC0267857C99B2F471ADF249FA232" + fp);
    CHECK(dup.line == 4);
    // A relay publishes to tor-form authorities; an authority of ours takes that form too
    // (it then signs tor's consensus alone; whether the line names it is checked at start).
    const std::string tor_auth = "DirAuthority tor1 v3ident=F533C81CEF0BC0267857C99B2F471ADF249FA232 127.0.0.1:1 "
                                 "1A25C6291F9B3E6E75583D9E0EAB7F026E216FC2\n";
    CHECK(ok(tor_auth).dir_authorities.at(0).rsa_identity[0] == 0x1A);
    CHECK(ok("AuthoritativeDirectory 1\nDirPort 9030\n" + tor_auth).dir_authorities.at(0).v3ident[0] == 0xF5);
  }
  SECTION("our form of DirAuthority is refused, at its file and line, at an authority or not") {
    for (const std::string role : {"AuthoritativeDirectory 1\nDirPort 9030\n", "Nickname x\nDirPort 9030\n"}) {
      auto ours = build(kBase + role + "DirAuthority a 127.0.0.1:1 " + kAuthId + "\n");
      REQUIRE_FALSE(ours);
      REQUIRE(ours.error().size() == 1);
      CHECK(ours.error()[0].file == "torrc");
      CHECK(ours.error()[0].line == 5);
      CHECK(ours.error()[0].message == "DirAuthority: tor's form only (v3ident=HEX40 ADDRESS:DIRPORT "
                                       "RSA_FINGERPRINT); our form with an Ed25519 identity retired");
      // Ours with a v3ident is ours too.
      auto hybrid = build(kBase + role + "DirAuthority a v3ident=" + std::string(40, 'A') + " 127.0.0.1:1 " +
                          kAuthId + "\n");
      REQUIRE_FALSE(hybrid);
      CHECK(hybrid.error()[0].line == 5);
    }
  }
  SECTION("warnings: low rate, bridge without authorities is fine, non-exit IPv6Exit, public MetricsPort") {
    auto o = ok("BridgeRelay 1\nBandwidthRate 50 KB\nBandwidthBurst 50 KB\nIPv6Exit 1\nMetricsPort 0.0.0.0:9035\n");
    REQUIRE(o.warnings.size() == 3);
    CHECK(o.warnings[0].line == 4);
    CHECK(o.warnings[1].line == 6);
    CHECK(o.warnings[2].line == 7);
  }
}

TEST_CASE("relay options: tor's repetition and empty-value rules", "[config][relay]") {
  auto o = ok("Nickname first\nNickname second\nMaxChannels 10\nMaxChannels\nLog\n");
  CHECK(o.nickname == "second");
  CHECK(o.max_channels == 4096);  // empty value: back to the default
  REQUIRE(o.warnings.size() == 3);
  CHECK(o.warnings[0].line == 4);  // Nickname twice
  CHECK(o.warnings[1].line == 7);  // Log with no value
  CHECK(o.logs.size() == 1);
}

TEST_CASE("relay options: ExitRelay auto follows ExitPolicy and IPv6Exit, as in tor", "[config][relay]") {
  CHECK_FALSE(ok("ExitRelay auto\n").is_exit());
  CHECK(ok("ExitRelay auto\nExitPolicy accept *:80\n").is_exit());
  CHECK_FALSE(ok("ExitRelay 0\nExitPolicy accept *:80\n").is_exit());
  CHECK(ok("ExitRelay auto\nIPv6Exit 1\n").is_exit());
  CHECK_FALSE(ok("IPv6Exit 1\n").is_exit());  // our default is ExitRelay 0
}

TEST_CASE("relay options: the table", "[config][relay]") {
  CHECK(find_relay_option("nickname")->name == "Nickname");
  CHECK(find_relay_option("v3authvotinginterval")->name == "ConsensusInterval");
  CHECK(find_relay_option("SocksPort") == nullptr);
  CHECK(find_relay_option("MaxCircuitsPerChannel")->compat == TorCompat::Ours);
  auto list = list_relay_options();
  CHECK(list.find("ORPort\n") != std::string::npos);
  CHECK(list.find("V3AuthVotingInterval\n") != std::string::npos);
  for (const auto& o : relay_option_table()) {
    INFO(o.name);
    CHECK(is_valid_key(o.name));
    CHECK(find_relay_option(o.name) == &o);
  }
}

TEST_CASE("load_relay_options: defaults file, torrc with include, command line", "[config][relay]") {
  MemoryFileSource fs;
  fs.add_file("/etc/conflux/defaults", "DataDirectory /var/lib/default\nLog notice stdout\nNickname Dflt\n");
  fs.add_file("/etc/conflux/torrc", "Nickname fromfile\nORPort 9001\nORPort 9002\n%include torrc.d\n");
  fs.add_file("/etc/conflux/torrc.d/exit", "ExitRelay 1\nExitPolicy accept *:80\n");
  const char* argv[] = {"conflux-relay", "--defaults-torrc", "/etc/conflux/defaults", "-f", "/etc/conflux/torrc",
                        "--ORPort", "9100", "--+ExitPolicy", "reject *:*"};
  auto cl = parse_command_line(9, argv);
  REQUIRE(cl);
  auto r = load_relay_options(*cl, fs);
  if (!r) FAIL(r.error().front().to_string());
  CHECK(r->data_directory == "/var/lib/default");
  CHECK(r->nickname == "fromfile");
  REQUIRE(r->or_ports.size() == 1);  // --ORPort replaced both file lines
  CHECK(r->or_ports[0].port == 9100);
  REQUIRE(r->exit_policy.size() == 2);
  CHECK(r->exit_policy[0].where == SourcePos{"/etc/conflux/torrc.d/exit", 2});
  CHECK(r->exit_policy[1].where == SourcePos{kCommandLineSource, 7});

  SECTION("an unknown override is reported at its argv index") {
    const char* a2[] = {"conflux-relay", "-f", "/etc/conflux/torrc", "--DataDirectory", "/d", "--Bogus", "1"};
    auto c2 = parse_command_line(7, a2);
    REQUIRE(c2);
    auto r2 = load_relay_options(*c2, fs);
    REQUIRE_FALSE(r2);
    CHECK(r2.error()[0].to_string() == "command line:5: unknown option 'Bogus'");
  }
  SECTION("a missing -f file is an error; a missing default path is not") {
    const char* a3[] = {"conflux-relay", "-f", "/nope"};
    auto r3 = load_relay_options(*parse_command_line(3, a3), fs);
    REQUIRE_FALSE(r3);
    CHECK(r3.error()[0].file == "/nope");
    const char* a4[] = {"conflux-relay", "-f", "/nope", "--ignore-missing-torrc", "--DataDirectory", "/d",
                        "--ORPort", "1"};
    CHECK(load_relay_options(*parse_command_line(8, a4), fs));
    const char* a5[] = {"conflux-relay", "--DataDirectory", "/d", "--ORPort", "1"};
    CHECK(load_relay_options(*parse_command_line(5, a5, std::string("/etc/absent")), fs));
  }
  SECTION("an error inside an included file names that file") {
    fs.add_file("/etc/conflux/torrc.d/exit", "ExitRelay 1\nExitRelay sometimes\n");
    auto r4 = load_relay_options(*cl, fs);
    REQUIRE_FALSE(r4);
    CHECK(r4.error()[0].to_string().rfind("/etc/conflux/torrc.d/exit:2: ExitRelay:", 0) == 0);
  }
}

TEST_CASE("relay options: ConsensusParams and OverrideConsensusParams", "[config][relay]") {
  auto o = ok("ConsensusParams cc_alg=2  cc_sendme_inc=31\tcfx_enabled=1\nOverrideConsensusParams cc_alg=0\n");
  CHECK(o.consensus_params == ConsensusParamMap{{"cc_alg", 2}, {"cc_sendme_inc", 31}, {"cfx_enabled", 1}});
  CHECK(o.override_consensus_params == ConsensusParamMap{{"cc_alg", 0}});
  CHECK(merge_consensus_params(o.consensus_params, o.override_consensus_params) ==
        ConsensusParamMap{{"cc_alg", 0}, {"cc_sendme_inc", 31}, {"cfx_enabled", 1}});
  CHECK(ok("ConsensusParams circwindow=-5").consensus_params.at("circwindow") == -5);
  std::string many = "ConsensusParams";
  for (int i = 0; i < 65; ++i) many += " p" + std::to_string(i) + "=1";
  CHECK(bad(many).message.find("more than 64") != std::string::npos);
}

TEST_CASE("relay options: MaxMemInQueues and the DoS options, as tor spells them", "[config][relay][dos]") {
  auto d = ok("");
  CHECK(d.max_mem_in_queues == 0);
  CHECK(d.dos.cc_enabled == AutoBool::Auto);
  CHECK(d.dos.conn_enabled == AutoBool::Auto);
  CHECK(d.dos.stream_enabled == AutoBool::Auto);
  CHECK(d.dos.cc_rate == 0);
  CHECK(d.dos.cc_defense_time_period == 0s);

  auto o = ok("MaxMemInQueues 512 MB\nDoSCircuitCreationEnabled 1\nDoSCircuitCreationMinConnections 2\n"
              "DoSCircuitCreationRate 5\nDoSCircuitCreationBurst 50\nDoSCircuitCreationDefenseType 2\n"
              "DoSCircuitCreationDefenseTimePeriod 2 hours\nDoSConnectionEnabled 0\n"
              "DoSConnectionMaxConcurrentCount 30\nDoSConnectionDefenseType 1\nDoSConnectionConnectRate 10\n"
              "DoSConnectionConnectBurst 20\nDoSConnectionConnectDefenseTimePeriod 1 day\n"
              "DoSStreamCreationEnabled auto\nDoSStreamCreationRate 50\nDoSStreamCreationBurst 150\n"
              "DoSStreamCreationDefenseType 3\n");
  CHECK(o.max_mem_in_queues == 512ull << 20);
  CHECK(o.dos.cc_enabled == AutoBool::True);
  CHECK(o.dos.cc_min_connections == 2);
  CHECK(o.dos.cc_rate == 5);
  CHECK(o.dos.cc_burst == 50);
  CHECK(o.dos.cc_defense_type == 2);
  CHECK(o.dos.cc_defense_time_period == 7200s);
  CHECK(o.dos.conn_enabled == AutoBool::False);
  CHECK(o.dos.conn_max_concurrent == 30);
  CHECK(o.dos.conn_defense_type == 1);
  CHECK(o.dos.conn_connect_rate == 10);
  CHECK(o.dos.conn_connect_burst == 20);
  CHECK(o.dos.conn_connect_defense_time_period == 86400s);
  CHECK(o.dos.stream_enabled == AutoBool::Auto);
  CHECK(o.dos.stream_rate == 50);
  CHECK(o.dos.stream_burst == 150);
  CHECK(o.dos.stream_defense_type == 3);

  CHECK(bad("DoSConnectionDefenseType 3\n").line == 3);  // 1 or 2 (0: the consensus)
  CHECK(bad("DoSStreamCreationDefenseType 4\n").line == 3);
  CHECK(bad("DoSCircuitCreationRate -1\n").line == 3);
  CHECK(bad("MaxMemInQueues lots\n").line == 3);
}

namespace {

// An authority of a test network, named in its own DirAuthority line (no
// "published nowhere" warning).
const std::string kTestingAuthority =
    "TestingTorNetwork 1\nAuthoritativeDirectory 1\nDirPort 9030\nDirAuthority a "
    "v3ident=F533C81CEF0BC0267857C99B2F471ADF249FA232 127.0.0.1:9030 1A25C6291F9B3E6E75583D9E0EAB7F026E216FC2\n";

}  // namespace

TEST_CASE("relay options: TestingDirAuthVoteGuard and ...Exit take tor's fingerprints and nicknames",
          "[config][relay]") {
  const std::string& testing_authority = kTestingAuthority;
  auto o = ok(testing_authority +
              "TestingDirAuthVoteGuard relay1, $FFCB46DB1339DA84674C70D7CB586434C4370441~named,"
              " ffcb46db1339da84674c70d7cb586434c4370442=Other ,Relay2,,\n"
              "TestingDirAuthVoteGuardIsStrict 1\nTestingDirAuthVoteExit exit1\n");
  CHECK(o.warnings.empty());
  CHECK(o.testing_vote_guard.nicknames == std::vector<std::string>{"relay1", "Relay2"});
  REQUIRE(o.testing_vote_guard.fingerprints.size() == 2);
  CHECK(o.testing_vote_guard.fingerprints[0][0] == 0xFF);
  CHECK(o.testing_vote_guard.fingerprints[0][19] == 0x41);
  CHECK(o.testing_vote_guard.fingerprints[1][19] == 0x42);
  CHECK(o.testing_vote_guard_strict);
  CHECK(o.testing_vote_exit.nicknames == std::vector<std::string>{"exit1"});
  CHECK_FALSE(o.testing_vote_exit_strict);

  // A single option: the last line wins (with a warning), an empty value resets.
  auto again = ok(testing_authority + "TestingDirAuthVoteGuard relay1\nTestingDirAuthVoteGuard relay3\n");
  CHECK(again.testing_vote_guard.nicknames == std::vector<std::string>{"relay3"});
  CHECK(again.warnings.size() == 1);
  CHECK(ok(testing_authority + "TestingDirAuthVoteGuard relay1\nTestingDirAuthVoteGuard\n").testing_vote_guard.empty());
  CHECK(ok("").testing_vote_guard.empty());
  CHECK_FALSE(ok("").testing_vote_guard_strict);
}

TEST_CASE("relay options: TestingDirAuthVote* outside a test network's authority are ignored, with a warning",
          "[config][relay]") {
  // tor ignores them silently without TestingTorNetwork and at a relay that
  // is no authority; we accept them too and say so, at the option's line.
  auto plain = ok(kTestingAuthority.substr(kTestingAuthority.find('\n') + 1) + "TestingDirAuthVoteGuard relay1\n");
  REQUIRE(plain.warnings.size() == 1);
  CHECK(plain.warnings[0].line == 6);
  CHECK(plain.warnings[0].message == "TestingDirAuthVoteGuard has no effect without TestingTorNetwork 1");
  auto relay = ok("TestingTorNetwork 1\nTestingDirAuthVoteExitIsStrict 1\n");
  REQUIRE(relay.warnings.size() == 2);  // and: no DirAuthority lines
  CHECK(relay.warnings[1].line == 4);
  CHECK(relay.warnings[1].message == "TestingDirAuthVoteExitIsStrict has no effect but at an authority");
}

TEST_CASE("relay options: V3BandwidthsFile at an authority, ignored with a warning elsewhere", "[config][relay]") {
  auto auth = ok(kTestingAuthority + "V3BandwidthsFile /var/lib/bwauth/v3bw\n");
  CHECK(auth.v3_bandwidths_file == "/var/lib/bwauth/v3bw");
  CHECK(auth.warnings.empty());
  CHECK(ok("").v3_bandwidths_file.empty());
  // tor reads it only at an authority.
  auto relay = ok("DirAuthority a v3ident=F533C81CEF0BC0267857C99B2F471ADF249FA232 127.0.0.1:9030 "
                  "1A25C6291F9B3E6E75583D9E0EAB7F026E216FC2\nV3BandwidthsFile /v3bw\n");
  REQUIRE(relay.warnings.size() == 1);
  CHECK(relay.warnings[0].line == 4);
  CHECK(relay.warnings[0].message == "V3BandwidthsFile has no effect but at an authority");
}
