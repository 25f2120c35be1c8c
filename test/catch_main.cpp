// Catch2's implementation and main, compiled once and linked into every
// Catch2 test binary but lowering_test (built without RTTI, as LLVM is):
// half a minute of compile each binary used to repeat.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
