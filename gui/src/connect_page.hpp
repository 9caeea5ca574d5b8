#pragma once
// The first screen: bridge lines pasted into a text box, each line checked
// as the user types (bridge_validation.hpp: --verify-config's messages), or
// the built-in bridges (builtin_bridges.hpp, checked the same way),
// Conflux on or off and its legs per set, "connect automatically next time",
// Connect. Connect is enabled only when every line is fine.
#include <QCheckBox>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QWidget>

#include "conflux/gui/proxy_torrc.hpp"
#include "saved_settings.hpp"

namespace conflux::gui {

class ConnectPage : public QWidget {
  Q_OBJECT
 public:
  explicit ConnectPage(QString obfs4proxy, QStringList builtin = {}, QWidget* parent = nullptr);

  void set_bridge_text(const QString& text);
  void set_conflux(bool on);
  void set_builtin(bool on);
  void load(const SavedSettings& s);
  [[nodiscard]] SavedSettings saved() const;
  void show_error(const QString& message);  // a failed attempt, shown above the button
  // What the validation list shows, one entry per bridge line (then general errors).
  [[nodiscard]] QStringList validation_messages() const;
  [[nodiscard]] QString error_text() const { return error_->text(); }
  [[nodiscard]] QPlainTextEdit* bridge_edit() const noexcept { return edit_; }
  [[nodiscard]] QPushButton* connect_button() const noexcept { return connect_; }
  [[nodiscard]] QCheckBox* builtin_box() const noexcept { return builtin_; }

 signals:
  void connect_requested(const conflux::gui::ProxySettings& settings);

 private:
  void revalidate();

  QString obfs4proxy_;
  QStringList builtin_lines_;
  QCheckBox* builtin_;
  QPlainTextEdit* edit_;
  QListWidget* checks_;
  QCheckBox* conflux_;
  QSpinBox* legs_;
  QCheckBox* auto_connect_;
  QLabel* error_;
  QPushButton* connect_;
  ProxySettings pending_;
};

}  // namespace conflux::gui
