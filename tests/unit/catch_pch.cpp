// Owner of the precompiled Catch2 header that the tests without Asio share
// (tests/CMakeLists.txt); it compiles nothing itself.
