#pragma once
// help2man include text (sections in [BRACKETS], roff inside) for the
// programs that read a torrc: the torrc options from the option table, and
// the files, signals and related pages.
#include <string>
#include <string_view>

namespace conflux::man {

// Roff-safe text: backslashes escaped, '-' as a minus sign, and a line that
// would begin with '.' or '\'' protected.
[[nodiscard]] std::string roff_escape(std::string_view text);

// The sections of conflux-relay's and of conflux-proxy's page.
[[nodiscard]] std::string relay_sections();
[[nodiscard]] std::string proxy_sections();

}  // namespace conflux::man
