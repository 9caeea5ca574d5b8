// The connect page checks bridge lines as the user types them, with the
// messages conflux-proxy --verify-config gives for the same lines in a torrc.
#include <signal.h>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "builtin_bridges.hpp"
#include "main_window.hpp"

using conflux::gui::ConnectPage;
using conflux::gui::MainWindow;

namespace {

const QString kId = QStringLiteral("AA4F2CD35B7D2A8C4B7C8C4E5F1E2D3C4B5A6978");  // an RSA fingerprint

// What `conflux-proxy --verify-config` prints for a torrc with these Bridge lines.
QString verify_config(const QStringList& lines, const QTemporaryDir& dir) {
  QFile torrc(dir.filePath(QStringLiteral("torrc")));
  if (!torrc.open(QIODevice::WriteOnly)) return {};
  QString text = QStringLiteral("DataDirectory %1\nUseBridges 1\nClientTransportPlugin obfs4 exec /usr/bin/obfs4proxy\n")
                     .arg(dir.filePath(QStringLiteral("data")));
  for (const auto& l : lines) text += QStringLiteral("Bridge ") + l + QStringLiteral("\n");
  torrc.write(text.toUtf8());
  torrc.close();
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start(QStringLiteral(CONFLUX_PROXY_BINARY), {QStringLiteral("--verify-config"), QStringLiteral("-f"), torrc.fileName()});
  p.waitForFinished(120000);  // a cold ASan start under load can take over 30 s
  return QString::fromUtf8(p.readAll());
}

}  // namespace

class ValidationTest : public QObject {
  Q_OBJECT
 private slots:
  void empty_box_cannot_connect() {
    ConnectPage page(QStringLiteral("/usr/bin/obfs4proxy"));
    QVERIFY(page.validation_messages().isEmpty());
    QVERIFY(!page.connect_button()->isEnabled());
  }

  void typed_valid_lines_are_accepted() {
    ConnectPage page(QStringLiteral("/usr/bin/obfs4proxy"));
    page.show();
    QTest::keyClicks(page.bridge_edit(), QStringLiteral("Bridge 127.0.0.1:9001 ") + kId);
    QTest::keyClick(page.bridge_edit(), Qt::Key_Return);
    QTest::keyClicks(page.bridge_edit(), QStringLiteral("obfs4 127.0.0.1:9002 ") + kId.left(39) + QStringLiteral("B"));
    QTest::keyClicks(page.bridge_edit(), QStringLiteral(" cert=AAAA iat-mode=0"));
    QTest::keyClick(page.bridge_edit(), Qt::Key_Return);
    // tor's form: the RSA fingerprint.
    QTest::keyClicks(page.bridge_edit(), QStringLiteral("127.0.0.1:9003 $0123456789ABCDEF0123456789ABCDEF01234567"));
    const auto m = page.validation_messages();
    QCOMPARE(m.size(), 3);
    QCOMPARE(m[0], QStringLiteral("Line 1: ✓ bridge at 127.0.0.1:9001"));
    QCOMPARE(m[1], QStringLiteral("Line 2: ✓ obfs4 bridge at 127.0.0.1:9002"));
    QCOMPARE(m[2], QStringLiteral("Line 3: ✓ bridge at 127.0.0.1:9003"));
    QVERIFY(page.connect_button()->isEnabled());
  }

  void message_follows_typing() {
    ConnectPage page(QStringLiteral("/usr/bin/obfs4proxy"));
    page.show();
    // Half-typed: the address alone, then the identity arrives.
    QTest::keyClicks(page.bridge_edit(), QStringLiteral("127.0.0.1:9001"));
    QCOMPARE(page.validation_messages().value(0),
             QStringLiteral("Line 1: Bridge: the bridge's identity is missing after ADDRESS:PORT (its RSA "
                            "fingerprint, 40 hex digits)"));
    QVERIFY(!page.connect_button()->isEnabled());
    QTest::keyClicks(page.bridge_edit(), QStringLiteral(" ") + kId);
    QCOMPARE(page.validation_messages().value(0), QStringLiteral("Line 1: ✓ bridge at 127.0.0.1:9001"));
    QVERIFY(page.connect_button()->isEnabled());
  }

  void broken_lines_get_verify_config_messages() {
    const QStringList lines{
        QStringLiteral("127.0.0.1:9001 ") + kId,                                 // fine
        QStringLiteral("127.0.0.1 ") + kId,                                      // no port
        QStringLiteral("127.0.0.1:9003 0123456789ABCDEF0123456789ABCDEF012345"),  // an RSA fingerprint too short
        QStringLiteral("snowflake 127.0.0.1:9004 ") + kId.left(38) + QStringLiteral("CC"),  // no such transport
        QStringLiteral("127.0.0.1:9005 ") + kId.left(38) + QStringLiteral("DD extra"),      // junk after the id
    };
    ConnectPage page(QStringLiteral("/usr/bin/obfs4proxy"));
    page.set_bridge_text(lines.join(QLatin1Char('\n')));
    const auto m = page.validation_messages();
    QCOMPARE(m.size(), 5);
    QVERIFY(m[0].startsWith(QStringLiteral("Line 1: ✓")));
    QVERIFY(!page.connect_button()->isEnabled());
    QTemporaryDir dir;
    const QString verify = verify_config(lines, dir);
    QVERIFY2(verify.contains(QStringLiteral("Bridge")), qPrintable(verify));
    for (int i = 1; i < 5; ++i) {
      const QString prefix = QStringLiteral("Line %1: ").arg(i + 1);
      QVERIFY2(m[i].startsWith(prefix) && !m[i].contains(QStringLiteral("✓")), qPrintable(m[i]));
      // The same words; a line's own parse error at that line of the torrc (its line 3 + i).
      const QString message = m[i].mid(prefix.size());
      const QString expected = i == 3 ? QStringLiteral(": %1").arg(message) : QStringLiteral(":%1: %2").arg(i + 4).arg(message);
      QVERIFY2(verify.contains(expected), qPrintable(m[i] + QStringLiteral("\n--verify-config said:\n") + verify));
    }
    QVERIFY(m[2].contains(QStringLiteral("Key digest for Bridge is wrong length")));
    QVERIFY(m[3].contains(QStringLiteral("snowflake pluggable transport")));
  }

  void duplicate_identity_is_refused() {
    ConnectPage page(QStringLiteral("/usr/bin/obfs4proxy"));
    page.set_bridge_text(QStringLiteral("127.0.0.1:9001 %1\n\n# a comment\nBridge 127.0.0.1:9002 %1\n").arg(kId));
    const auto m = page.validation_messages();
    QCOMPARE(m.size(), 2);
    QVERIFY(m[0].startsWith(QStringLiteral("Line 1: ")));
    QVERIFY(m[1].startsWith(QStringLiteral("Line 4: ")));
    QVERIFY2(m.join('\n').contains(QStringLiteral("Bridge: two lines give the same identity")), qPrintable(m.join('\n')));
    QVERIFY(!page.connect_button()->isEnabled());
  }

  // Errors are shown, never swallowed: a proxy that cannot start, one that exits at once.
  void proxy_failures_come_back_to_the_connect_page() {
    QTemporaryDir dir;
    const QString line = QStringLiteral("127.0.0.1:9 ") + kId;
    conflux::gui::AppOptions o;
    o.launch = {dir.filePath(QStringLiteral("no-such-proxy")), dir.filePath(QStringLiteral("data")), {}};
    MainWindow missing(o);
    missing.show();
    missing.connect_page()->set_bridge_text(line);
    QTest::mouseClick(missing.connect_page()->connect_button(), Qt::LeftButton);
    QTRY_VERIFY(!missing.connect_page()->error_text().isEmpty());
    QCOMPARE(missing.current_page(), static_cast<QWidget*>(missing.connect_page()));
    QVERIFY2(missing.connect_page()->error_text().contains(QStringLiteral("cannot start")),
             qPrintable(missing.connect_page()->error_text()));
    QTRY_VERIFY(!missing.session().running());

    // The real proxy, given a defaults file with a bad line: it exits, and its error is shown.
    QFile bad(dir.filePath(QStringLiteral("bad.torrc")));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("NotAnOption 1\n");
    bad.close();
    o.launch = {QStringLiteral(CONFLUX_PROXY_BINARY), dir.filePath(QStringLiteral("data")), bad.fileName()};
    MainWindow exits(o);
    exits.show();
    exits.connect_page()->set_bridge_text(line);
    QTest::mouseClick(exits.connect_page()->connect_button(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!exits.connect_page()->error_text().isEmpty(), 30000);
    QCOMPARE(exits.current_page(), static_cast<QWidget*>(exits.connect_page()));
    const QString error = exits.connect_page()->error_text();
    QVERIFY2(error.contains(QStringLiteral("exited with status 1")) && error.contains(QStringLiteral("NotAnOption")),
             qPrintable(error));
  }

  // The shipped built-in list passes the proxy's checks line by line; choosing it
  // replaces the pasted lines (the box is disabled, its text kept).
  void builtin_bridges_are_checked_and_chosen() {
    const QStringList shipped = conflux::gui::load_builtin_bridges(QStringLiteral(CONFLUX_GUI_SHIPPED_BRIDGES));
    QCOMPARE(shipped.size(), 11);
    QVERIFY(shipped.front().startsWith(QStringLiteral("obfs4 192.95.36.142:443 CDF2E852")));
    ConnectPage page(QStringLiteral("/usr/bin/obfs4proxy"), shipped);
    QVERIFY(page.builtin_box()->isEnabled());
    page.set_bridge_text(QStringLiteral("not a bridge"));
    QVERIFY(!page.connect_button()->isEnabled());
    page.builtin_box()->click();
    QVERIFY(page.builtin_box()->isChecked());
    QVERIFY(!page.bridge_edit()->isEnabled());
    const auto m = page.validation_messages();
    QCOMPARE(m.size(), 11);
    for (const auto& line : m) QVERIFY2(line.contains(QStringLiteral(": ✓ obfs4 bridge at ")), qPrintable(line));
    QVERIFY(page.connect_button()->isEnabled());
    QVERIFY(page.saved().builtin);
    QCOMPARE(page.saved().bridge_text, QStringLiteral("not a bridge"));
    ConnectPage none(QStringLiteral("/usr/bin/obfs4proxy"), conflux::gui::load_builtin_bridges(QStringLiteral("/nonexistent")));
    QVERIFY(!none.builtin_box()->isEnabled());
  }

  // The settings go to the proxy (SETCONF), which saves them in its torrc
  // (SAVECONF); the next start shows them again. "Connect automatically next
  // time" (the app's own preference) connects at start.
  void settings_are_saved_by_the_proxy_and_auto_connect_connects() {
    QTemporaryDir dir;
    // A directory authority on a closed loopback port: once the network is let
    // go, the proxy asks no one else.
    QFile defaults(dir.filePath(QStringLiteral("defaults.torrc")));
    QVERIFY(defaults.open(QIODevice::WriteOnly));
    defaults.write(QStringLiteral("DirAuthority closed v3ident=%1 127.0.0.1:9 %1\n").arg(kId).toUtf8());
    defaults.close();
    conflux::gui::AppOptions o;
    o.launch = {QStringLiteral(CONFLUX_PROXY_BINARY), dir.filePath(QStringLiteral("data")), defaults.fileName()};
    const QString torrc = QDir(o.launch.data_dir).filePath(QStringLiteral("torrc"));
    const QString line = QStringLiteral("127.0.0.1:9 ") + kId;
    auto saved_torrc = [&] {
      QFile f(torrc);
      return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    };
    {
      MainWindow first(o);
      first.show();
      QVERIFY(first.connect_page()->bridge_edit()->toPlainText().isEmpty());
      first.connect_page()->load({QStringLiteral("# mine\n") + line + QStringLiteral("\n"), true, 3, false});
      QTest::mouseClick(first.connect_page()->connect_button(), Qt::LeftButton);
      QTRY_VERIFY2_WITH_TIMEOUT(saved_torrc().contains(QStringLiteral("ConfluxNumLegs 3")), qPrintable(saved_torrc()), 120000);
    }
    const QString text = saved_torrc();
    QVERIFY2(text.startsWith(QStringLiteral("# This file was generated by Tor")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("\nBridge ") + line + QStringLiteral("\n")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("\nUseBridges 1\n")), qPrintable(text));
    // The app's own lines (defaults torrc, "__" options) are not the proxy's to save.
    QVERIFY2(!text.contains(QStringLiteral("DisableNetwork")) && !text.contains(QStringLiteral("ControlPort")) &&
                 !text.contains(QStringLiteral("__Owning")) && !text.contains(QStringLiteral("DirAuthority")),
             qPrintable(text));
    {
      MainWindow second(o);
      const auto s = second.connect_page()->saved();
      QCOMPARE(s.bridge_text, line);
      QCOMPARE(s.legs, 3);
      QVERIFY(s.conflux);
      QVERIFY(!s.auto_connect);
      // The proxy starts with the window, its network held: it did not connect by itself.
      QTRY_VERIFY_WITH_TIMEOUT(second.session().proxy_ready(), 60000);
      QVERIFY(!second.session().connecting());
      QCOMPARE(second.current_page(), static_cast<QWidget*>(second.connect_page()));
      second.show();
      second.connect_page()->load({line, false, 2, true});
      QTest::mouseClick(second.connect_page()->connect_button(), Qt::LeftButton);
      QTRY_VERIFY2_WITH_TIMEOUT(saved_torrc().contains(QStringLiteral("ConfluxEnabled 0")), qPrintable(saved_torrc()), 120000);
    }
    MainWindow third(o);
    QVERIFY(third.connect_page()->saved().auto_connect);
    QVERIFY(!third.connect_page()->saved().conflux);
    QTRY_VERIFY(third.session().running());
    QVERIFY(third.session().connecting());
    QCOMPARE(third.current_page(), static_cast<QWidget*>(third.bootstrap_page()));
  }

  // As Tor Browser keeps tor: Cancel holds the network (DisableNetwork 1) and
  // the proxy stays; Connect lets it go again on the same proxy; closing stops it.
  void cancel_keeps_the_proxy_and_connect_reuses_it() {
    QTemporaryDir dir;
    QFile defaults(dir.filePath(QStringLiteral("defaults.torrc")));
    QVERIFY(defaults.open(QIODevice::WriteOnly));
    defaults.write(QStringLiteral("DirAuthority closed v3ident=%1 127.0.0.1:9 %1\n").arg(kId).toUtf8());
    defaults.close();
    conflux::gui::AppOptions o;
    o.launch = {QStringLiteral(CONFLUX_PROXY_BINARY), dir.filePath(QStringLiteral("data")), defaults.fileName()};
    MainWindow w(o);
    w.show();
    QStringList log;
    connect(&w.session(), &conflux::gui::ProxySession::log_line, this, [&log](const QString& l) { log << l; });
    QTRY_VERIFY_WITH_TIMEOUT(w.session().proxy_ready(), 60000);
    const qint64 pid = w.session().proxy_pid();
    auto count = [&log](const QString& text) {
      return static_cast<int>(std::count_if(log.begin(), log.end(), [&](const QString& l) { return l.contains(text); }));
    };
    const QString released = QStringLiteral("DisableNetwork 0: connecting to the network.");
    const QString held = QStringLiteral("DisableNetwork is set.");
    w.connect_page()->set_bridge_text(QStringLiteral("127.0.0.1:9 ") + kId);
    for (int attempt = 1; attempt <= 2; ++attempt) {
      QTest::mouseClick(w.connect_page()->connect_button(), Qt::LeftButton);
      QCOMPARE(w.current_page(), static_cast<QWidget*>(w.bootstrap_page()));
      QTRY_COMPARE_WITH_TIMEOUT(count(released), attempt, 60000);
      QTest::mouseClick(w.bootstrap_page()->cancel_button(), Qt::LeftButton);
      QCOMPARE(w.current_page(), static_cast<QWidget*>(w.connect_page()));
      QTRY_COMPARE_WITH_TIMEOUT(count(held), attempt + 1, 60000);  // the first at start
      QVERIFY(!w.session().connecting());
      QCOMPARE(w.session().proxy_pid(), pid);
    }
    // The second Connect's SAVECONF came after a Cancel: DisableNetwork 1 is the
    // defaults torrc's own value, not the user's setting, and is not saved (tor's rule).
    QFile saved(QDir(o.launch.data_dir).filePath(QStringLiteral("torrc")));
    QVERIFY(saved.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(saved.readAll());
    QVERIFY2(text.contains(QStringLiteral("\nUseBridges 1\n")) && !text.contains(QStringLiteral("DisableNetwork")),
             qPrintable(text));
    w.close();
    QVERIFY(!w.session().running());
    QVERIFY(::kill(static_cast<pid_t>(pid), 0) != 0);
  }
};

QTEST_MAIN(ValidationTest)
#include "test_gui_validation.moc"
