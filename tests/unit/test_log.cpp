#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <unistd.h>

#include "conflux/log/log.hpp"

using namespace conflux;

TEST_CASE("log lines use tor's severities and format, and ranges filter", "[log]") {
  auto dir = std::filesystem::temp_directory_path() / ("conflux-log-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto path = (dir / "relay.log").string();
  log::configure({{log::Destination::Kind::File, path, log::Severity::Info, log::Severity::Warn}});
  log::write(log::Severity::Debug, "hidden debug");
  log::write(log::Severity::Info, "an info line");
  log::sink("channel")(log::Severity::Notice, "a notice");
  log::write(log::Severity::Warn, "a warning");
  log::write(log::Severity::Err, "hidden error");
  log::shutdown();

  std::ifstream in(path);
  std::stringstream all;
  all << in.rdbuf();
  std::vector<std::string> lines;
  for (std::string line; std::getline(all, line);) lines.push_back(line);
  REQUIRE(lines.size() == 3);
  const std::regex format(R"(^[A-Z][a-z]{2} \d{2} \d{2}:\d{2}:\d{2}\.\d{3} \[(info|notice|warn)\] .+$)");
  for (const auto& l : lines) CHECK(std::regex_match(l, format));
  CHECK(lines[0].find("[info] an info line") != std::string::npos);
  CHECK(lines[1].find("[notice] channel: a notice") != std::string::npos);
  CHECK(lines[2].find("[warn] a warning") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("an unwritable log file is reported", "[log]") {
  // A path below a regular file cannot be created, even by root.
  auto file = std::filesystem::temp_directory_path() / ("conflux-log-file-" + std::to_string(::getpid()));
  std::ofstream(file) << "x";
  CHECK_THROWS_AS(log::configure({{log::Destination::Kind::File, (file / "y.log").string(), log::Severity::Notice,
                                   log::Severity::Err}}),
                  std::runtime_error);
  std::filesystem::remove(file);
}
