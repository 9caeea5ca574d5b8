// The pieces of conflux-gui without a window: the proxy's status lines and
// events (docs/CONTROL.md formats; the replies that carry them are read by
// common/control's ReplyReader, tests/unit/test_control_reply_reader.cpp),
// the SETCONF the app sends, the defaults torrc it writes (accepted by
// conflux-proxy --verify-config) and the settings read back from a saved torrc.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "conflux/gui/proxy_torrc.hpp"
#include "conflux/gui/status_parsing.hpp"

using namespace conflux::gui;

namespace {
constexpr const char* kFp = "AA4F2CD35B7D2A8C4B7C8C4E5F1E2D3C4B5A6978";  // bridges by RSA fingerprint (tor's form)
constexpr const char* kFp2 = "BB4F2CD35B7D2A8C4B7C8C4E5F1E2D3C4B5A6978";
}  // namespace

class ParsingTest : public QObject {
  Q_OBJECT
 private slots:
  void bootstrap_phase() {
    const auto p = parse_bootstrap_phase("NOTICE BOOTSTRAP PROGRESS=50 TAG=loading_descriptors SUMMARY=\"Loading relay descriptors\"");
    QVERIFY(p.has_value());
    QCOMPARE(p->progress, 50);
    QCOMPARE(p->tag, std::string("loading_descriptors"));
    QCOMPARE(p->summary, std::string("Loading relay descriptors"));
    QVERIFY(!parse_bootstrap_phase("NOTICE CIRCUIT_ESTABLISHED").has_value());
    QVERIFY(!parse_bootstrap_phase("NOTICE BOOTSTRAP PROGRESS=150 TAG=x").has_value());
  }

  void legs_paths_bw_listeners() {
    const auto legs = parse_conflux_sets(
        "SET=1 STATE=OPEN CIRC=7 SRTT_MS=12.5 MIN_RTT_MS=10.25 CWND=124 INFLIGHT=0 SHARE=0.6 READ=5090 WRITTEN=1018\n"
        "SET=1 STATE=OPEN CIRC=9 SRTT_MS=30 MIN_RTT_MS=28 CWND=124 INFLIGHT=3 SHARE=0.4\n"
        "SET=2 STATE=LINKING LEGS=0");
    QCOMPARE(legs.size(), std::size_t{2});
    QCOMPARE(legs[0].circuit, 7u);
    QCOMPARE(legs[0].srtt_ms, 12.5);
    QCOMPARE(legs[1].share, 0.4);
    QCOMPARE(legs[0].read, std::uint64_t{5090});
    QCOMPARE(legs[0].written, std::uint64_t{1018});
    QCOMPARE(legs[1].read, std::uint64_t{0});  // an older proxy gives no bytes
    const auto paths = parse_circuit_paths(
        "7 BUILT $AAAA~obfsA,$BBBB~relay1,$CCCC~exit1 BUILD_FLAGS=NEED_CAPACITY PURPOSE=CONFLUX_LINKED\n"
        "8 LAUNCHED BUILD_FLAGS=NEED_CAPACITY PURPOSE=GENERAL\n9 EXTENDED bridgeB BUILD_FLAGS=NEED_CAPACITY");
    QCOMPARE(paths.size(), std::size_t{3});
    QCOMPARE(paths.at(7), (std::vector<std::string>{"obfsA", "relay1", "exit1"}));
    QVERIFY(paths.at(8).empty());
    QCOMPARE(paths.at(9), std::vector<std::string>{"bridgeB"});
    const auto bw = parse_bw_event("BW 1024 77");
    QVERIFY(bw && bw->read == 1024 && bw->written == 77);
    QVERIFY(!parse_bw_event("BW x 1"));
    QCOMPARE(first_socks_listener("\"127.0.0.1:41234\" \"[::1]:41235\""), std::string("127.0.0.1:41234"));
    const auto named = parse_bridge_descriptor_notice(
        "Nov 26 11:00:00.000 [notice] Bridge obfsA (127.0.0.1:4100): descriptor fetched and verified.");
    QVERIFY(named && named->first == "127.0.0.1:4100" && named->second == "obfsA");
  }

  void leg_and_circ_events() {
    const auto leg = parse_conflux_leg_event("CONFLUX_LEG SET=3 CIRC=12 STATUS=BW RTT_MS=41.5 READ=5090 WRITTEN=1018");
    QVERIFY(leg);
    QCOMPARE(leg->status, std::string("BW"));
    QCOMPARE(leg->leg.set, 3u);
    QCOMPARE(leg->leg.circuit, 12u);
    QCOMPARE(leg->leg.srtt_ms, 41.5);
    QCOMPARE(leg->leg.read, std::uint64_t{5090});
    QCOMPARE(leg->leg.written, std::uint64_t{1018});
    QVERIFY(!parse_conflux_leg_event("CONFLUX_LEG SET=3 STATUS=BW"));
    QVERIFY(!parse_conflux_leg_event("CIRC 12 BUILT"));
    const auto circ = parse_circ_event("CIRC 7 BUILT $AAAA~obfsA,$BBBB~relay1,$CCCC~exit1 PURPOSE=GENERAL");
    QVERIFY(circ);
    QCOMPARE(circ->circuit, 7u);
    QCOMPARE(circ->status, std::string("BUILT"));
    QCOMPARE(circ->hops, (std::vector<std::string>{"obfsA", "relay1", "exit1"}));
    const auto launched = parse_circ_event("CIRC 8 LAUNCHED PURPOSE=GENERAL");
    QVERIFY(launched && launched->status == "LAUNCHED" && launched->hops.empty());
    QVERIFY(!parse_circ_event("CONFLUX_LEG SET=1 CIRC=2 STATUS=BW"));
    const auto ok = parse_bridge_test_event("CONFLUX_BRIDGE ADDR=127.0.0.1:4100 STATUS=OK MS=12");
    QVERIFY(ok && ok->ok && ok->address == "127.0.0.1:4100" && ok->ms == 12 && ok->reason.empty());
    const auto dead = parse_bridge_test_event(
        "CONFLUX_BRIDGE ADDR=127.0.0.1:4101 STATUS=FAILED MS=3 REASON=\"connect failed: \\\"refused\\\"\"");
    QVERIFY(dead && !dead->ok && dead->ms == 3);
    QCOMPARE(dead->reason, std::string("connect failed: \"refused\""));
    QVERIFY(!parse_bridge_test_event("CONFLUX_BRIDGE ADDR=127.0.0.1:4101 STATUS=MAYBE MS=3"));
    QVERIFY(!parse_bridge_test_event("CONFLUX_LEG SET=1 CIRC=2 STATUS=BW"));
  }

  // What the app sends and saves: SETCONF's quoting, the defaults torrc the
  // proxy accepts, and the settings read back from a torrc SAVECONF wrote.
  void setconf_and_saved_torrc() {
    ProxySettings s;
    s.bridges = {"127.0.0.1:9001 " + std::string(kFp), "obfs4 127.0.0.1:9002 " + std::string(kFp2) + " cert=A+/\"q iat-mode=0"};
    s.uses_transport = true;
    s.conflux_legs = 3;
    QCOMPARE(settings_setconf(s),
             "SETCONF UseBridges=1 Bridge=\"127.0.0.1:9001 " + std::string(kFp) + "\" Bridge=\"obfs4 127.0.0.1:9002 " +
                 std::string(kFp2) + " cert=A+/\\\"q iat-mode=0\" ClientTransportPlugin=\"obfs4 exec /usr/bin/obfs4proxy\" "
                 "ConfluxEnabled=1 ConfluxNumLegs=3");
    s.uses_transport = false;
    s.conflux = false;
    s.bridges.pop_back();
    QCOMPARE(settings_setconf(s), "SETCONF UseBridges=1 Bridge=\"127.0.0.1:9001 " + std::string(kFp) +
                                      "\" ClientTransportPlugin ConfluxEnabled=0 ConfluxNumLegs=3");
    // A CR or LF in a value would end the command line: escaped (fuzz_gui_bridge_lines checks it).
    QCOMPARE(control_quoted("a\r\nb\"c\\"), std::string("\"a\\r\\nb\\\"c\\\\\""));
    const auto back = settings_from_torrc(empty_saved_torrc() + "UseBridges 1\nBridge obfs4 127.0.0.1:9002 " +
                                          std::string(kFp2) + " cert=AAAA iat-mode=0\nConfluxEnabled 0\nConfluxNumLegs 5\n");
    QVERIFY(back);
    QCOMPARE(back->bridges, std::vector<std::string>{"obfs4 127.0.0.1:9002 " + std::string(kFp2) + " cert=AAAA iat-mode=0"});
    QVERIFY(back->uses_transport && !back->conflux);
    QCOMPARE(back->conflux_legs, 5u);
    QVERIFY(!settings_from_torrc(empty_saved_torrc()));
    QVERIFY(!settings_from_torrc("UseBridges 0\nBridge 127.0.0.1:9001 " + std::string(kFp) + "\n"));
  }

  void defaults_torrc_passes_verify_config() {
    QTemporaryDir dir;
    const ProxyPaths paths{dir.filePath("data").toStdString(), dir.filePath("port").toStdString(),
                           dir.filePath("cookie").toStdString()};
    const auto text = proxy_defaults_torrc(paths, "TestingTorNetwork 1");
    QVERIFY(text.find("DisableNetwork 1\n") != std::string::npos);
    QVERIFY(text.find("CookieAuthFile " + paths.cookie_file + "\n") != std::string::npos);
    QVERIFY(text.ends_with("# From --defaults-torrc:\nTestingTorNetwork 1\n"));
    QFile defaults(dir.filePath("torrc-defaults"));
    QVERIFY(defaults.open(QIODevice::WriteOnly));
    defaults.write(QByteArray::fromStdString(text));
    defaults.close();
    QFile torrc(dir.filePath("torrc"));
    QVERIFY(torrc.open(QIODevice::WriteOnly));
    torrc.write(QByteArray::fromStdString(empty_saved_torrc() + "UseBridges 1\nBridge 127.0.0.1:9001 " + kFp + "\n"));
    torrc.close();
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(QStringLiteral(CONFLUX_PROXY_BINARY), {QStringLiteral("--verify-config"), QStringLiteral("-f"), torrc.fileName(),
                                                  QStringLiteral("--defaults-torrc"), defaults.fileName(),
                                                  QStringLiteral("--__OwningControllerProcess"), QStringLiteral("4242")});
    // Generous: a cold start of the ASan-built proxy on a loaded 2-core machine once took over 30 s.
    QVERIFY(p.waitForFinished(120000));
    QVERIFY2(p.exitCode() == 0, p.readAll().constData());
  }
};

QTEST_MAIN(ParsingTest)
#include "test_gui_parsing.moc"
