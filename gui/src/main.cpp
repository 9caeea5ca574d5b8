// conflux-gui: the desktop app for bridge users (docs: README "GUI", gui/README.md).
#include <QApplication>
#include <QDir>

#include "app_options.hpp"
#include "main_window.hpp"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("conflux-gui"));
  QApplication::setOrganizationName(QStringLiteral("conflux"));
  QApplication::setDesktopFileName(QStringLiteral("conflux-gui"));
  auto options = conflux::gui::parse_app_options(QApplication::arguments());
  QDir().mkpath(options.launch.data_dir);
  conflux::gui::MainWindow window(options);
  window.show();
  return QApplication::exec();
}
