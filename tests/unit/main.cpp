// The Catch2 main lives alone so that editing a test does not recompile it.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
