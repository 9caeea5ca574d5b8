// KIST's per-socket limit (proto/kist_limit.hpp) against values computed by
// hand from given TCP_INFO readings (seeds-digest K4; tor's scheduler_kist.c).
#include <catch2/catch.hpp>

#include "conflux/proto/kist_limit.hpp"

using namespace conflux::proto;

TEST_CASE("the KIST limit is 2*cwnd*mss - unacked*mss - notsent - outbuf", "[kist]") {
  // cwnd 10, 4 unacked, MSS 1448: (10-4)*1448 + 10*1448 = 8688 + 14480.
  CHECK(kist_limit({10, 4, 1448, 0}, 0) == 23168);
  // 3000 bytes not yet sent and two cells' worth (1086) in our outbuf.
  CHECK(kist_limit({10, 4, 1448, 3000}, 1086) == 19082);
  // Nothing in flight: two full windows.
  CHECK(kist_limit({10, 0, 1448, 0}, 0) == 28960);
  // Loopback's 64 KiB MSS with the initial window of 10.
  CHECK(kist_limit({10, 0, 65483, 0}, 0) == 1309660);
}

TEST_CASE("the KIST limit clamps at zero and ignores an overfull window", "[kist]") {
  // More unacked than the window: no tcp space (not negative), one window extra.
  CHECK(kist_limit({10, 12, 1000, 0}, 0) == 10000);
  // notsent beyond both windows: 2000 + 2000 - 50000 < 0 gives 0.
  CHECK(kist_limit({2, 0, 1000, 50000}, 0) == 0);
  CHECK(kist_limit({2, 0, 1000, 0}, 1ULL << 63) == 0);  // absurd outbuf: still 0, no overflow
  CHECK(kist_limit({0, 0, 0, 0}, 0) == 0);
  // Largest kernel values do not overflow.
  CHECK(kist_limit({0xffffffffU, 0, 0xffffffffU, 0}, 0) > 0);
}

TEST_CASE("KISTSockBufSizeFactor scales the extra window", "[kist]") {
  // (10-0)*1448 + 0.5*10*1448 = 14480 + 7240.
  CHECK(kist_limit({10, 0, 1448, 0}, 0, 0.5) == 21720);
  CHECK(kist_limit({10, 0, 1448, 0}, 0, 0.0) == 14480);
  CHECK(kist_limit({10, 0, 1448, 0}, 0, -3.0) == 14480);  // negative is treated as 0
}

TEST_CASE("KISTLite allows the cells that fit below the 32 KiB high-water mark", "[kist]") {
  // ceil(32768/514) = 64 cells of 514 + 29 bytes.
  CHECK(kist_lite_limit(0) == 64 * 543);
  // ceil((32768-32000)/514) = 2.
  CHECK(kist_lite_limit(32000) == 2 * 543);
  CHECK(kist_lite_limit(32768) == 0);
  CHECK(kist_lite_limit(100000) == 0);
}

TEST_CASE("the original KIST limit is min(sndbuf - outq, (cwnd - unacked)*mss) - outbuf", "[kist]") {
  // Socket space 87040 - 20000 = 67040; TCP space (10-4)*1448 = 8688: the window binds.
  CHECK(kist_original_limit({10, 4, 1448, 0}, {87040, 20000}, 0) == 8688);
  // Socket space 16384 - 12000 = 4384 < TCP space 14480: the buffer binds.
  CHECK(kist_original_limit({10, 0, 1448, 0}, {16384, 12000}, 0) == 4384);
  // Two cells' worth (1086) in our outbuf come off whichever binds: 8688 - 1086, 4384 - 1086.
  CHECK(kist_original_limit({10, 4, 1448, 0}, {87040, 20000}, 1086) == 7602);
  CHECK(kist_original_limit({10, 0, 1448, 0}, {16384, 12000}, 1086) == 3298);
  // notsent plays no part (SIOCOUTQ already counts it): same as the first case.
  CHECK(kist_original_limit({10, 4, 1448, 5000}, {87040, 20000}, 0) == 8688);
  // Both equal: 20000 - 5520 = 14480 = 10*1448.
  CHECK(kist_original_limit({10, 0, 1448, 0}, {20000, 5520}, 0) == 14480);
}

TEST_CASE("the original KIST limit is 0 when the window or the buffer is full", "[kist]") {
  // unacked == cwnd and unacked > cwnd: no TCP space, whatever the buffer.
  CHECK(kist_original_limit({10, 10, 1448, 0}, {87040, 0}, 0) == 0);
  CHECK(kist_original_limit({10, 12, 1448, 0}, {87040, 0}, 0) == 0);
  // SIOCOUTQ == SO_SNDBUF and SIOCOUTQ > SO_SNDBUF (the kernel may overshoot): no socket space.
  CHECK(kist_original_limit({10, 0, 1448, 0}, {16384, 16384}, 0) == 0);
  CHECK(kist_original_limit({10, 0, 1448, 0}, {16384, 20000}, 0) == 0);
  // An outbuf at or beyond the limit: 0, not negative: 8688 - 8688, 8688 - 9000, absurd.
  CHECK(kist_original_limit({10, 4, 1448, 0}, {87040, 20000}, 8688) == 0);
  CHECK(kist_original_limit({10, 4, 1448, 0}, {87040, 20000}, 9000) == 0);
  CHECK(kist_original_limit({10, 4, 1448, 0}, {87040, 20000}, ~0ULL) == 0);
  CHECK(kist_original_limit({0, 0, 0, 0}, {0, 0}, 0) == 0);
  // Largest kernel values do not overflow: (2^32-1)^2 = 2^64 - 2^33 + 1 is
  // below the buffer's 2^64 - 2, so the window binds.
  CHECK(kist_original_limit({0xffffffffU, 0, 0xffffffffU, 0}, {~0ULL, 1}, 0) == 0xfffffffe00000001ULL);
}
