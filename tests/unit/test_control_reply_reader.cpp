// The controller's reader of control-spec replies (common/control
// ReplyReader, used by conflux-gui and by conflux-net's questions to stock tor
// relays): whole replies out of bytes cut anywhere, data blocks dot-unstuffed,
// events told apart, and the stream ended by the first malformed line or
// anything over a bound.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "conflux/control/reply_reader.hpp"

using namespace conflux::control;

namespace {

struct Outcome {
  std::vector<ControlReplyMsg> replies;
  std::string error;
  bool operator==(const Outcome&) const = default;
};

// `bytes` fed in the pieces that `cuts` (ascending offsets) make.
Outcome read_cut(std::string_view bytes, const std::vector<std::size_t>& cuts) {
  ReplyReader r;
  Outcome out;
  std::size_t from = 0;
  auto feed = [&](std::size_t to) {
    for (auto& m : r.feed(bytes.substr(from, to - from))) out.replies.push_back(std::move(m));
    from = to;
  };
  for (const auto c : cuts) feed(c);
  feed(bytes.size());
  out.error = r.error();
  return out;
}

// The house's run_all_splits: byte by byte and every single cut give what one
// feed gives.
Outcome read_all_splits(std::string_view bytes) {
  const Outcome whole = read_cut(bytes, {});
  std::vector<std::size_t> every;
  for (std::size_t i = 1; i < bytes.size(); ++i) every.push_back(i);
  CHECK(read_cut(bytes, every) == whole);
  for (std::size_t i = 1; i < bytes.size(); ++i) CHECK(read_cut(bytes, {i}) == whole);
  return whole;
}

}  // namespace

TEST_CASE("replies, a data block and an event, cut anywhere", "[control][reply_reader]") {
  const std::string bytes =
      "250-version=0.4.9.0-conflux\r\n250+circuit-status=\r\n1 BUILT a,b\r\n..dot\r\n.\r\n250 OK\r\n"
      "650 BW 10 20\r\n515 Authentication failed\r\n";
  const auto got = read_all_splits(bytes);
  CHECK(got.error.empty());
  REQUIRE(got.replies.size() == 3);
  CHECK(got.replies[0].ok());
  CHECK(got.replies[0].lines.size() == 3);
  CHECK(getinfo_value(got.replies[0], "version") == "0.4.9.0-conflux");
  CHECK(getinfo_value(got.replies[0], "circuit-status") == "1 BUILT a,b\n.dot");
  CHECK(getinfo_value(got.replies[0], "absent").empty());
  CHECK(got.replies[0].status_text() == "OK");
  CHECK(got.replies[1].is_event());
  CHECK(got.replies[1].lines.front().text == "BW 10 20");
  CHECK(got.replies[2].code == 515);
  CHECK_FALSE(got.replies[2].ok());
  CHECK(got.replies[2].status_text() == "Authentication failed");
}

TEST_CASE("a line without CR, and a reply not yet ended, wait for more", "[control][reply_reader]") {
  ReplyReader r;
  CHECK(r.feed("250-a=1\n250 O").empty());
  const auto got = r.feed("K\r\n");
  REQUIRE(got.size() == 1);
  CHECK(getinfo_value(got[0], "a") == "1");
  CHECK(got[0].status_text() == "OK");
  CHECK(r.ok());
}

TEST_CASE("a malformed line ends the stream, and nothing after it is read", "[control][reply_reader]") {
  for (const char* bad : {"hello\r\n", "25 OK\r\n", "2a0 OK\r\n", "250\r\n", "250*OK\r\n"}) {
    const auto got = read_all_splits(std::string(bad) + "250 OK\r\n");
    CHECK(got.replies.empty());
    CHECK(got.error == "a malformed reply line");
  }
}

TEST_CASE("a reply whose lines change code ends the stream", "[control][reply_reader]") {
  const auto got = read_all_splits("250 OK\r\n250-a\r\n551 b\r\n");
  CHECK(got.replies.size() == 1);
  CHECK(got.error == "a reply whose lines change code");
}

TEST_CASE("a line or a data block over 1 MiB ends the stream", "[control][reply_reader]") {
  ReplyReader line;
  (void)line.feed(std::string(ReplyReader::kMaxBuffered + 10, 'x'));
  CHECK(line.error() == "a reply line over 1 MiB");
  CHECK(line.feed("250 OK\r\n").empty());

  ReplyReader data;
  (void)data.feed("250+ns/all=\r\n");
  const std::string row(1000, 'r');
  // Rows of 1001 bytes (each with its newline): the 1048th takes the block over 1 MiB.
  std::size_t rows = 0;
  while (data.ok() && rows < 2000) {
    CHECK(data.feed(row + "\r\n").empty());
    ++rows;
  }
  CHECK(rows == 1048);
  CHECK(data.error() == "a data block over 1 MiB");
}

TEST_CASE("a reply of too many lines ends the stream", "[control][reply_reader]") {
  ReplyReader r;
  std::string many;
  for (std::size_t i = 0; i < ReplyReader::kMaxLinesPerReply; ++i) many += "250-x\n";
  CHECK(r.feed(many).empty());
  CHECK(r.ok());
  CHECK(r.feed("250-one more\n").empty());
  CHECK(r.error() == "a reply with too many lines");
}
