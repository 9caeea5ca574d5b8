// conflux-man-options PROGRAM: the help2man include text of conflux-relay or
// conflux-proxy on stdout (man_sections.hpp).
#include <cstdio>
#include <string>
#include <string_view>

#include "man_sections.hpp"

int main(int argc, char** argv) {
  const std::string_view program = argc == 2 ? std::string_view(argv[1]) : std::string_view();
  std::string out;
  if (program == "conflux-relay") out = conflux::man::relay_sections();
  else if (program == "conflux-proxy") out = conflux::man::proxy_sections();
  if (out.empty()) {
    std::fputs("usage: conflux-man-options conflux-relay|conflux-proxy\n", stderr);
    return 2;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}
