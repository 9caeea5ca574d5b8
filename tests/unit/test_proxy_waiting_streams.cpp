// The streams waiting for a carrier, counted in groups (one build per group):
// with PerClientGuards a stream launches builds against its own guard
// client's groups, since only that client's carriers can serve it (else each
// of N waiting clients built up to N circuits of its own).
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "conflux/client/waiting_streams.hpp"

using namespace conflux;
using client::StreamNeeds;
using client::WaitingStreams;
using client::Wakeup;

namespace {

StreamNeeds needs(std::string isolation, std::string client, std::uint16_t port = 80) {
  StreamNeeds n;
  n.port = port;
  n.isolation = std::move(isolation);
  n.guard_client = std::move(client);
  return n;
}

}  // namespace

TEST_CASE("waiting groups are counted per guard client too", "[carrier][client-guards]") {
  net::asio::io_context io;
  std::vector<std::unique_ptr<Wakeup>> w;
  for (int i = 0; i < 6; ++i) w.push_back(std::make_unique<Wakeup>(io.get_executor()));
  WaitingStreams waiting;
  waiting.add(*w[0], needs("a/1", "a"));
  waiting.add(*w[1], needs("a/1", "a"));  // the same group
  waiting.add(*w[2], needs("a/2", "a"));
  waiting.add(*w[3], needs("b/1", "b"));
  waiting.add(*w[4], needs("b/1", "b", 443));  // another port: another group
  waiting.add(*w[5], needs("x", ""));
  CHECK(waiting.size() == 6);
  CHECK(waiting.groups() == 5);
  CHECK(waiting.groups("a") == 2);
  CHECK(waiting.groups("b") == 2);
  CHECK(waiting.groups("") == 1);
  CHECK(waiting.groups("c") == 0);
  waiting.remove(*w[0]);
  CHECK(waiting.groups("a") == 2);  // w[1] still waits in group a/1
  waiting.remove(*w[1]);
  CHECK(waiting.groups("a") == 1);
  waiting.remove(*w[2]);
  CHECK(waiting.groups("a") == 0);
  CHECK(waiting.groups() == 3);
  waiting.remove(*w[2]);  // twice: nothing changes
  CHECK(waiting.groups() == 3);
}

TEST_CASE("without guard clients every group is the one client's", "[carrier][client-guards]") {
  net::asio::io_context io;
  Wakeup a(io.get_executor()), b(io.get_executor()), c(io.get_executor());
  WaitingStreams waiting;
  waiting.add(a, needs("1", ""));
  waiting.add(b, needs("2", ""));
  waiting.add(c, needs("3", ""));
  CHECK(waiting.groups() == 3);
  CHECK(waiting.groups("") == 3);
}
