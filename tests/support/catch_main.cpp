// Catch2's main() for rowwise_host_tests. Compiled once, into the rowwise_catch_main library.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
