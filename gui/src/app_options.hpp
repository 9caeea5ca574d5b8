#pragma once
// conflux-gui's command line: where conflux-proxy is, the data directory,
// and an optional --defaults-torrc for the proxy (a private test network's
// DirAuthority lines, README "GUI").
#include <QStringList>

#include "main_window.hpp"

namespace conflux::gui {

// Parses argv (exits with usage on --help or an error, as QCommandLineParser does).
[[nodiscard]] AppOptions parse_app_options(const QStringList& arguments);
// conflux-proxy: $CONFLUX_PROXY, next to this program, in the build tree
// (../client/app/), else from PATH.
[[nodiscard]] QString find_proxy_program();

}  // namespace conflux::gui
