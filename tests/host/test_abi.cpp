// tests/host/test_abi.cpp — the inline ABI namespace (include/rowwise/abi.hpp): its name carries
// the version and every entry of a target list, a host compiler gets the _host name, the
// namespace is inline (callers' rowwise:: names reach into it), and the plain data types stay
// outside it.
#include <catch2/catch.hpp>

#include <rowwise/abi.hpp>
#include <rowwise/dispatch/plan.hpp>
#include <rowwise/status.hpp>
#include <rowwise/version.hpp>
#include <rowwise/views.hpp>

#include <string>
#include <type_traits>
#include <typeinfo>

#define ROWWISE_TEST_STR_(...) #__VA_ARGS__
#define ROWWISE_TEST_STR(...) ROWWISE_TEST_STR_(__VA_ARGS__)

namespace {

std::string version_prefix() {
  return "abi_" + std::to_string(ROWWISE_VERSION_MAJOR) + "_" + std::to_string(ROWWISE_VERSION_MINOR) + "_" +
         std::to_string(ROWWISE_VERSION_PATCH);
}

}  // namespace

TEST_CASE("abi: the namespace name lists the version and every target, in order", "[host][abi]") {
  CHECK(std::string(ROWWISE_TEST_STR(ROWWISE_DETAIL_ABI_NAME_FOR(900))) == version_prefix() + "_sm_900");
  CHECK(std::string(ROWWISE_TEST_STR(ROWWISE_DETAIL_ABI_NAME_FOR(800, 900))) == version_prefix() + "_sm_800_900");
  CHECK(std::string(ROWWISE_TEST_STR(ROWWISE_DETAIL_ABI_NAME_FOR(900, 800))) == version_prefix() + "_sm_900_800");
  // nvcc 13's -arch=all: 12 targets.
  CHECK(std::string(ROWWISE_TEST_STR(
            ROWWISE_DETAIL_ABI_NAME_FOR(750, 800, 860, 870, 880, 890, 900, 1000, 1030, 1100, 1200, 1210))) ==
        version_prefix() + "_sm_750_800_860_870_880_890_900_1000_1030_1100_1200_1210");
  // The longest list the macros take.
  CHECK(std::string(ROWWISE_TEST_STR(ROWWISE_DETAIL_ABI_NAME_FOR(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                                                 16, 17, 18, 19, 20, 21, 22, 23, 24))) ==
        version_prefix() + "_sm_1_2_3_4_5_6_7_8_9_10_11_12_13_14_15_16_17_18_19_20_21_22_23_24");
}

TEST_CASE("abi: a host compiler's translation unit gets the _host name", "[host][abi]") {
  // This file is compiled by the host compiler alone: no __CUDA_ARCH_LIST__.
#ifdef __CUDA_ARCH_LIST__
  FAIL("tests/host is meant for the host compiler");
#endif
  CHECK(std::string(ROWWISE_TEST_STR(ROWWISE_ABI_NAMESPACE)) == version_prefix() + "_host");
}

TEST_CASE("abi: the namespace is inline, and status and the views stay outside it", "[host][abi]") {
  // rowwise::dispatch reaches the ABI namespace's dispatch.
  STATIC_REQUIRE(std::is_same_v<rowwise::dispatch::plan, rowwise::ROWWISE_ABI_NAMESPACE::dispatch::plan>);
  // Where a type is declared shows in its mangled name (the Itanium ABI that g++ and nvcc's host
  // side use): the plan's names the ABI namespace; the data types that callers pass between
  // translation units built with other targets are declared in rowwise itself.
  const std::string abi = ROWWISE_TEST_STR(ROWWISE_ABI_NAMESPACE);
  CHECK(std::string(typeid(rowwise::dispatch::plan).name()).find(abi) != std::string::npos);
  for (const char* name : {typeid(rowwise::status).name(), typeid(rowwise::errc).name(),
                           typeid(rowwise::matrix_view<float>).name(), typeid(rowwise::vector_view<const float>).name()}) {
    INFO(name);
    CHECK(std::string(name).find("abi_") == std::string::npos);
    CHECK(std::string(name).find("7rowwise") != std::string::npos);
  }
}
