// The order in which a circuit's or set's streams hear that DATA may go
// again: each reopening starts one stream further along, so the stream with
// the highest ID on a busy carrier is not always served last (issue 13).
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include "conflux/client/stream_carrier.hpp"

using namespace conflux;

namespace {

struct Named final : client::StreamEvents {
  explicit Named(int n) : name(n) {}
  int name;
  void on_stream_msg(const cell::RelayMsg&) override {}
  void on_circuit_writable() override {}
  void on_circuit_closed(std::string_view) override {}
};

std::vector<int> names(const std::vector<client::StreamEvents*>& order) {
  std::vector<int> out;
  for (auto* s : order) out.push_back(static_cast<Named*>(s)->name);
  return out;
}

}  // namespace

TEST_CASE("each reopening tells the streams starting one further along", "[carrier]") {
  Named a(1), b(2), c(3);
  const std::map<std::uint16_t, client::StreamEvents*> streams{{1, &a}, {2, &b}, {3, &c}};
  std::size_t turn = 0;
  CHECK(names(client::wake_order(streams, turn)) == std::vector<int>{1, 2, 3});
  CHECK(names(client::wake_order(streams, turn)) == std::vector<int>{2, 3, 1});
  CHECK(names(client::wake_order(streams, turn)) == std::vector<int>{3, 1, 2});
  CHECK(names(client::wake_order(streams, turn)) == std::vector<int>{1, 2, 3});
}

TEST_CASE("a stream that left does not stop the rotation", "[carrier]") {
  Named a(1), b(2), c(3);
  std::map<std::uint16_t, client::StreamEvents*> streams{{1, &a}, {2, &b}, {3, &c}};
  std::size_t turn = 0;
  (void)client::wake_order(streams, turn);
  streams.erase(2);
  CHECK(names(client::wake_order(streams, turn)) == std::vector<int>{3, 1});
  CHECK(names(client::wake_order(streams, turn)) == std::vector<int>{1, 3});
  streams.clear();
  CHECK(client::wake_order(streams, turn).empty());
  CHECK(turn == 3);
}
