// conflux-gui against a real network (conflux-net: 4 relays, 2 exits, two
// obfs4 bridges): the app's own conflux-proxy, started with its network held,
// gets the bridges over the ControlPort (SETCONF, saved by SAVECONF), connects
// through both, reaches 100%, shows two Conflux legs with RTTs, a download
// through the SOCKS address it shows is intact; "Test bridges" finds both
// alive; one bridge killed shows as such on its card (and to the test) and a
// download still works; Disconnect then Connect reuses the same proxy (its
// SOCKS listener closed between, back on its port); closing the window stops
// the proxy. The built-in
// bridges from an overriding list connect too. Then __OwningControllerProcess:
// a proxy whose owner dies exits. Screenshots of each page go to
// $CONFLUX_GUI_SCREENSHOTS (docs/gui/ when refreshing them).
#include <signal.h>

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>
#include <cerrno>

#include "builtin_bridges.hpp"
#include "main_window.hpp"

using namespace conflux::gui;

namespace {

const QByteArray kSpec = R"({
  "relays": 4, "exits": 2,
  "bridges": [{"name": "obfsA", "transport": "obfs4"}, {"name": "obfsB", "transport": "obfs4"}],
  "proxies": [{"name": "proxy", "start": false, "use_bridges": true, "conflux": true}]
})";

QByteArray read_file(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool write_file(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

bool process_gone(qint64 pid) { return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH; }

// Whether something accepts TCP connections at "127.0.0.1:PORT".
bool socks_accepts(const QString& address) {
  QTcpSocket s;
  s.connectToHost(QHostAddress::LocalHost, address.section(QLatin1Char(':'), -1).toUShort());
  return s.waitForConnected(3000);
}

QString screenshot_dir() {
  const QString env = qEnvironmentVariable("CONFLUX_GUI_SCREENSHOTS");
  return env.isEmpty() ? QStringLiteral(CONFLUX_GUI_SCREENSHOT_DIR) : env;
}

void screenshot(QWidget& window, const QString& name) {
  QDir().mkpath(screenshot_dir());
  QVERIFY(window.grab().save(QDir(screenshot_dir()).filePath(name)));
}

// The lines of `text` that start with `prefix`.
QStringList lines_starting(const QByteArray& text, const QString& prefix) {
  QStringList out;
  for (const auto& l : QString::fromUtf8(text).split(QLatin1Char('\n')))
    if (l.startsWith(prefix)) out << l;
  return out;
}

}  // namespace

class NetworkTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QVERIFY(write_file(dir_.filePath("spec.json"), kSpec));
    QProcess up;
    up.setProcessChannelMode(QProcess::MergedChannels);
    up.start(QStringLiteral(CONFLUX_NET_BINARY),
             {"up", "--dir", net_dir(), "--spec", dir_.filePath("spec.json")});
    QVERIFY(up.waitForFinished(300000));
    up_ = true;
    QVERIFY2(up.exitCode() == 0, up.readAll().constData());
    net_ = QJsonDocument::fromJson(read_file(QDir(net_dir()).filePath("network.json"))).object();
    for (const auto& p : net_["processes"].toArray())
      if (p.toObject()["name"] == QLatin1String("proxy")) proxy_torrc_ = p.toObject()["torrc"].toString();
    const QByteArray torrc = read_file(proxy_torrc_);
    bridge_lines_ = lines_starting(torrc, "Bridge ");
    QCOMPARE(bridge_lines_.size(), 2);
    // What a user of this private network adds: its authorities and test-network rules.
    const QString defaults = lines_starting(torrc, "DirAuthority ").join('\n') +
                             QStringLiteral("\nTestingTorNetwork 1\nEnforceDistinctSubnets 0\n");
    QVERIFY(write_file(dir_.filePath("network.torrc"), defaults.toUtf8()));
  }

  void cleanupTestCase() {
    if (up_) QProcess::execute(QStringLiteral(CONFLUX_NET_BINARY), {"down", "--dir", net_dir()});
  }

  void connects_through_two_bridges_and_downloads();
  void builtin_bridges_from_an_override_list();
  void owner_gone_stops_the_proxy();
  void unreachable_bridge_is_explained();

 private:
  [[nodiscard]] QString net_dir() const { return dir_.filePath("net"); }
  [[nodiscard]] AppOptions options() const {
    AppOptions o;
    o.launch = {QStringLiteral(CONFLUX_PROXY_BINARY), dir_.filePath("gui-data"), dir_.filePath("network.torrc")};
    o.builtin_bridges = QStringLiteral(CONFLUX_GUI_SHIPPED_BRIDGES);  // offered, not chosen (no public network here)
    return o;
  }
  [[nodiscard]] QJsonObject process(const QString& name) const {
    for (const auto& p : net_["processes"].toArray())
      if (p.toObject()["name"] == name) return p.toObject();
    return {};
  }
  [[nodiscard]] QJsonObject file(const QString& name) const {
    for (const auto& f : net_["files"].toArray())
      if (f.toObject()["name"] == name) return f.toObject();
    return {};
  }

  QTemporaryDir dir_;
  bool up_ = false;
  QJsonObject net_;
  QString proxy_torrc_;
  QStringList bridge_lines_;
};

void NetworkTest::connects_through_two_bridges_and_downloads() {
  QDir().mkpath(dir_.filePath("gui-data"));
  MainWindow w(options());
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  // Pasted as conflux-net printed them.
  w.connect_page()->set_bridge_text(bridge_lines_.join('\n'));
  QVERIFY2(w.connect_page()->connect_button()->isEnabled(), qPrintable(w.connect_page()->validation_messages().join('\n')));
  screenshot(w, "connect.png");
  QTest::mouseClick(w.connect_page()->connect_button(), Qt::LeftButton);
  QCOMPARE(w.current_page(), static_cast<QWidget*>(w.bootstrap_page()));
  QTRY_VERIFY_WITH_TIMEOUT(w.bootstrap_page()->progress() >= 10 || w.current_page() != w.bootstrap_page(), 120000);
  if (w.current_page() == w.bootstrap_page()) screenshot(w, "bootstrap.png");
  QTRY_VERIFY2_WITH_TIMEOUT(w.current_page() == w.connected_page(), qPrintable(w.connect_page()->validation_messages().join('\n')), 180000);
  QCOMPARE(w.bootstrap_page()->progress(), 100);

  // A Conflux set of two open legs, each with an RTT, through the two bridges (more
  // sets may open meanwhile: the proxy keeps a spare).
  auto* legs = w.connected_page()->legs_table();
  auto two_legs = [&] {
    QMap<QString, QSet<QString>> first_hops;  // by set
    QMap<QString, int> open;
    for (int r = 0; r < legs->rowCount(); ++r) {
      const QString set = legs->item(r, 0)->text();
      if (legs->item(r, 4)->text().toDouble() <= 0 || legs->item(r, 3)->text() != QLatin1String("OPEN")) continue;
      ++open[set];
      first_hops[set] << legs->item(r, 2)->text().section(QStringLiteral(" → "), 0, 0);
    }
    for (auto it = open.begin(); it != open.end(); ++it)
      if (it.value() == 2 && first_hops[it.key()] == QSet<QString>{"obfsA", "obfsB"}) return true;
    return false;
  };
  QTRY_VERIFY_WITH_TIMEOUT(two_legs(), 120000);
  QTRY_VERIFY_WITH_TIMEOUT(!w.connected_page()->socks_text().isEmpty(), 10000);

  // A download through the address the page shows.
  const QJsonObject f = file("5MiB.bin");
  QProcess curl;
  // No SOCKS username: the stream goes on the linked set seen above (a new isolation group's
  // stream can go on a single circuit while its own set links).
  curl.start("curl", {"-sS", "--max-time", "240", "--socks5-hostname", w.connected_page()->socks_text(), "-o",
                      dir_.filePath("got.bin"), f["url"].toString()});
  QTRY_VERIFY_WITH_TIMEOUT(curl.state() == QProcess::NotRunning, 250000);
  QVERIFY2(curl.exitCode() == 0, curl.readAllStandardError().constData());
  QCOMPARE(QCryptographicHash::hash(read_file(dir_.filePath("got.bin")), QCryptographicHash::Sha256).toHex(),
           f["sha256"].toString().toLatin1());
  QTRY_VERIFY_WITH_TIMEOUT(w.connected_page()->throughput_text().contains(QStringLiteral("since connecting")), 5000);
  for (auto* card : w.connected_page()->cards())
    QVERIFY2(card->status_text().startsWith(QStringLiteral("Reachable")), qPrintable(card->status_text()));
  // Per-leg throughput (conflux/sets' byte counts): two legs drawn, the
  // download seen in the total, and each bridge's share of it on its card.
  // The page learns the legs' bytes from the proxy's next per-second leg
  // events: an unthrottled download can end before them.
  const LegGraph* graph = w.connected_page()->leg_graph();
  QVERIFY2(graph->line_count() >= 2, qPrintable(QString::number(graph->line_count())));
  QTRY_VERIFY2_WITH_TIMEOUT(graph->total_peak() > 100, qPrintable(QString::number(graph->total_peak())), 10000);
  double shares = 0;
  for (auto* card : w.connected_page()->cards()) {
    const QRegularExpression share(QStringLiteral("; (\\d+)% of the traffic, [0-9.]+ KiB/s now"));
    const auto m = share.match(card->status_text());
    QVERIFY2(m.hasMatch(), qPrintable(card->status_text()));
    shares += m.captured(1).toDouble();
  }
  QVERIFY2(shares >= 98 && shares <= 102, qPrintable(QString::number(shares)));
  // "Test bridges": both answer.
  QTest::mouseClick(w.connected_page()->test_button(), Qt::LeftButton);
  QTRY_VERIFY_WITH_TIMEOUT(!w.connected_page()->testing(), 15000);
  for (auto* card : w.connected_page()->cards()) {
    QVERIFY2(card->probe_text().startsWith(QStringLiteral("Test: answered in ")), qPrintable(card->probe_text()));
    // And the proxy's own test (CONFLUX_TESTBRIDGES): each bridge gave its descriptor through obfs4.
    QTRY_VERIFY2_WITH_TIMEOUT(card->tor_test_text().startsWith(QStringLiteral("Tor: the bridge gave its descriptor in ")),
                              qPrintable(card->tor_test_text()), 40000);
  }
  screenshot(w, "connected.png");
  // The bridges went over the ControlPort, and the proxy saved them in its torrc.
  const QString saved = QString::fromUtf8(read_file(dir_.filePath("gui-data/torrc")));
  for (const auto& line : bridge_lines_) QVERIFY2(saved.contains(line + QLatin1Char('\n')), qPrintable(saved));
  QVERIFY2(saved.contains(QStringLiteral("\nClientTransportPlugin obfs4 exec ")), qPrintable(saved));

  // Disconnect holds the network (as Tor Browser's cancel): the same proxy
  // stays, without a SOCKS listener; Connect lets it go again, the listener
  // back on the same port, and the legs link again.
  const qint64 first_pid = w.session().proxy_pid();
  const QString socks = w.connected_page()->socks_text();
  QTest::mouseClick(w.connected_page()->disconnect_button(), Qt::LeftButton);
  QCOMPARE(w.current_page(), static_cast<QWidget*>(w.connect_page()));
  QTRY_VERIFY_WITH_TIMEOUT(!socks_accepts(socks), 10000);
  QCOMPARE(w.session().proxy_pid(), first_pid);
  QVERIFY(!process_gone(first_pid));
  QTest::mouseClick(w.connect_page()->connect_button(), Qt::LeftButton);
  // Nothing of the last attempt shows: no graph line, no byte count.
  QCOMPARE(w.connected_page()->leg_graph()->line_count(), std::size_t{0});
  QVERIFY(w.connected_page()->throughput_text().isEmpty());
  QTRY_VERIFY_WITH_TIMEOUT(w.current_page() == w.connected_page(), 120000);
  QTRY_VERIFY_WITH_TIMEOUT(two_legs(), 120000);
  QTRY_COMPARE_WITH_TIMEOUT(w.connected_page()->socks_text(), socks, 10000);
  QCOMPARE(w.session().proxy_pid(), first_pid);
  QVERIFY(socks_accepts(socks));

  // One bridge dies: its card says so, and downloads go on through the other.
  const QJsonObject dead = process("obfsB");
  const QString dead_address = QStringLiteral("127.0.0.1:%1").arg(dead["ports"].toObject()["pt"].toInt());
  BridgeCard* dead_card = nullptr;
  for (auto* card : w.connected_page()->cards())
    if (card->address() == dead_address) dead_card = card;
  QVERIFY(dead_card != nullptr);
  QVERIFY(::kill(static_cast<pid_t>(dead["pid"].toInteger()), SIGKILL) == 0);
  QTRY_VERIFY2_WITH_TIMEOUT(dead_card->status_text().startsWith(QStringLiteral("No circuit")),
                            qPrintable(dead_card->status_text()), 60000);
  QTest::mouseClick(w.connected_page()->test_button(), Qt::LeftButton);
  QTRY_VERIFY_WITH_TIMEOUT(!w.connected_page()->testing(), 15000);
  QVERIFY2(dead_card->probe_text().startsWith(QStringLiteral("Test: dead (")), qPrintable(dead_card->probe_text()));
  QTRY_VERIFY2_WITH_TIMEOUT(dead_card->tor_test_text().startsWith(QStringLiteral("Tor: no answer after ")),
                            qPrintable(dead_card->tor_test_text()), 40000);
  const QJsonObject f2 = file("1MiB.bin");
  curl.start("curl", {"-sS", "--max-time", "120", "--socks5-hostname", w.connected_page()->socks_text(),
                      "--proxy-user", "gui2:x", "-o", dir_.filePath("got2.bin"), f2["url"].toString()});
  QTRY_VERIFY_WITH_TIMEOUT(curl.state() == QProcess::NotRunning, 130000);
  QVERIFY2(curl.exitCode() == 0, curl.readAllStandardError().constData());
  QCOMPARE(QCryptographicHash::hash(read_file(dir_.filePath("got2.bin")), QCryptographicHash::Sha256).toHex(),
           f2["sha256"].toString().toLatin1());
  screenshot(w, "bridge-down.png");

  // Closing the window stops the proxy, cleanly.
  const qint64 pid = w.session().proxy_pid();
  QVERIFY(pid > 0);
  w.close();
  QVERIFY(process_gone(pid));
}

// The built-in list named by CONFLUX_GUI_BUILTIN_BRIDGES (here: this network's
// two bridges, as a shipped list would hold them) is offered and connects.
void NetworkTest::builtin_bridges_from_an_override_list() {
  QVERIFY(write_file(dir_.filePath("builtin.txt"), ("# test list\n" + bridge_lines_.join('\n') + "\n").toUtf8()));
  qputenv("CONFLUX_GUI_BUILTIN_BRIDGES", dir_.filePath("builtin.txt").toUtf8());
  AppOptions o = options();
  o.builtin_bridges = find_builtin_bridges_file();
  qunsetenv("CONFLUX_GUI_BUILTIN_BRIDGES");
  QCOMPARE(o.builtin_bridges, dir_.filePath("builtin.txt"));
  // A new data directory (the other test's proxy, stopped, would still hold the network's state).
  o.launch.data_dir = dir_.filePath("gui-builtin");
  QDir().mkpath(o.launch.data_dir);
  MainWindow w(o);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  QVERIFY(w.connect_page()->builtin_box()->isEnabled());
  w.connect_page()->builtin_box()->click();
  // obfsB was killed by the test before: single circuits through obfsA.
  w.connect_page()->set_conflux(false);
  QVERIFY2(w.connect_page()->connect_button()->isEnabled(), qPrintable(w.connect_page()->validation_messages().join('\n')));
  QTest::mouseClick(w.connect_page()->connect_button(), Qt::LeftButton);
  QTRY_VERIFY_WITH_TIMEOUT(w.current_page() == w.connected_page(), 180000);
  QCOMPARE(w.connected_page()->cards().size(), std::size_t{2});
  const QString saved = QString::fromUtf8(read_file(QDir(o.launch.data_dir).filePath("torrc")));
  for (const auto& line : bridge_lines_) QVERIFY2(saved.contains(line + QLatin1Char('\n')), qPrintable(saved));
  w.close();
  MainWindow again(o);
  QVERIFY(again.connect_page()->saved().builtin);
}

void NetworkTest::owner_gone_stops_the_proxy() {
  // A stand-in owner; the proxy polls it every 15 s as tor does.
  QProcess owner;
  owner.start("sleep", {"600"});
  QVERIFY(owner.waitForStarted());
  const qint64 owner_pid = owner.processId();
  const QString data = dir_.filePath("owned");
  QDir().mkpath(data);
  const QString torrc = QStringLiteral("DataDirectory %1\nSocksPort auto\n__OwningControllerProcess %2\n")
                            .arg(data)
                            .arg(owner_pid);
  QVERIFY(write_file(QDir(data).filePath("torrc"), torrc.toUtf8()));
  QProcess proxy;
  proxy.setProcessChannelMode(QProcess::MergedChannels);
  proxy.start(QStringLiteral(CONFLUX_PROXY_BINARY),
              {"-f", QDir(data).filePath("torrc"), "--defaults-torrc", dir_.filePath("network.torrc")});
  QVERIFY(proxy.waitForStarted());
  QTest::qWait(2000);
  QCOMPARE(proxy.state(), QProcess::Running);
  owner.kill();
  QVERIFY(owner.waitForFinished());
  QTRY_VERIFY_WITH_TIMEOUT(proxy.state() == QProcess::NotRunning, 40000);
  const QByteArray out = proxy.readAll();
  QVERIFY2(out.contains("Owning controller: process " + QByteArray::number(owner_pid) +
                        " has vanished -- exiting now."), out.constData());
  QCOMPARE(proxy.exitCode(), 0);
}

// A bridge line whose port nothing listens on: the bootstrap stops, and the page says
// where and what to try. Cancel keeps the proxy, and other bridges then connect through it.
void NetworkTest::unreachable_bridge_is_explained() {
  QTcpServer closed;  // a free port, then closed again
  QVERIFY(closed.listen(QHostAddress::LocalHost));
  const quint16 port = closed.serverPort();
  closed.close();
  const QJsonObject bridge = process("obfsA");
  const QString line = QStringLiteral("Bridge 127.0.0.1:%1 %2").arg(port).arg(bridge["rsa_fingerprint"].toString());
  AppOptions o = options();
  o.launch.data_dir = dir_.filePath("gui-stuck");
  QDir().mkpath(o.launch.data_dir);
  MainWindow w(o);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  w.bootstrap_page()->set_stuck_after(std::chrono::seconds(8));
  w.connect_page()->set_bridge_text(line);
  QTest::mouseClick(w.connect_page()->connect_button(), Qt::LeftButton);
  QTRY_VERIFY_WITH_TIMEOUT(!w.bootstrap_page()->stuck_text().isEmpty(), 60000);
  QCOMPARE(w.current_page(), static_cast<QWidget*>(w.bootstrap_page()));
  QVERIFY(w.bootstrap_page()->progress() < 100);
  const QString stuck = w.bootstrap_page()->stuck_text();
  QVERIFY2(stuck.startsWith(QStringLiteral("Stuck at: ")) && stuck.contains(QStringLiteral("What to try")),
           qPrintable(stuck));
  // "Test bridges" from there: nothing listens at the line's address.
  QVERIFY(w.bootstrap_page()->test_button()->isVisible());
  QTest::mouseClick(w.bootstrap_page()->test_button(), Qt::LeftButton);
  QTRY_VERIFY_WITH_TIMEOUT(!w.bootstrap_page()->testing(), 15000);
  QCOMPARE(w.bootstrap_page()->test_text(),
           QStringLiteral("127.0.0.1:%1: Test: dead (Connection refused)").arg(port));
  screenshot(w, "stuck.png");
  // Cancel holds the network; the proxy stays and takes the next settings:
  // the other bridge (obfsA; obfsB was killed before), single circuits.
  const qint64 pid = w.session().proxy_pid();
  QTest::mouseClick(w.bootstrap_page()->cancel_button(), Qt::LeftButton);
  QCOMPARE(w.current_page(), static_cast<QWidget*>(w.connect_page()));
  QVERIFY(!process_gone(pid));
  QString working;
  for (const auto& l : bridge_lines_)
    if (!l.contains(QStringLiteral(":%1 ").arg(process("obfsB")["ports"].toObject()["pt"].toInt()))) working = l;
  QVERIFY(!working.isEmpty());
  w.connect_page()->set_bridge_text(working);
  w.connect_page()->set_conflux(false);
  QTest::mouseClick(w.connect_page()->connect_button(), Qt::LeftButton);
  QTRY_VERIFY_WITH_TIMEOUT(w.current_page() == w.connected_page(), 120000);
  QCOMPARE(w.session().proxy_pid(), pid);
  QTRY_VERIFY_WITH_TIMEOUT(!w.connected_page()->socks_text().isEmpty(), 10000);
  const QJsonObject f = file("1MiB.bin");
  QProcess curl;
  curl.start("curl", {"-sS", "--max-time", "120", "--socks5-hostname", w.connected_page()->socks_text(),
                      "--proxy-user", "gui3:x", "-o", dir_.filePath("got3.bin"), f["url"].toString()});
  QTRY_VERIFY_WITH_TIMEOUT(curl.state() == QProcess::NotRunning, 130000);
  QVERIFY2(curl.exitCode() == 0, curl.readAllStandardError().constData());
  QCOMPARE(QCryptographicHash::hash(read_file(dir_.filePath("got3.bin")), QCryptographicHash::Sha256).toHex(),
           f["sha256"].toString().toLatin1());
  w.close();
  QVERIFY(process_gone(pid));
}

QTEST_MAIN(NetworkTest)
#include "test_gui_network.moc"
