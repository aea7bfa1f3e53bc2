// rowwise/abi.hpp — the inline namespace that gives each library version and each list of CUDA
// targets its own symbols.
//
// Why: rowwise's kernels, and the host code that plans and launches them, are templates and
// inline functions. Two translation units of one program that include rowwise with different
// targets (nvcc -arch lists), or two libraries that each carry a different rowwise version,
// instantiate them under the same names; the linker keeps one host-side copy and the CUDA runtime
// launches one image for all callers, so a caller built for sm_90 could run code compiled for
// compute_80 under a plan made for sm_90 (or the other way round). Putting everything that
// touches a kernel into `rowwise::ROWWISE_ABI_NAMESPACE` (an inline namespace: callers still
// write `rowwise::softmax`) makes those instances distinct symbols, each with its own kernels,
// its own per-device caches and its own plan for what its kernels can do. CUB does the same.
//
// The name is abi_<major>_<minor>_<patch>_sm_<each target of __CUDA_ARCH_LIST__>, e.g.
// abi_0_1_0_sm_800_900 for nvcc -gencode ...compute_80... -gencode ...compute_90...; nvcc defines
// __CUDA_ARCH_LIST__ in its host and device passes alike, so both see one name. Translation units
// without it (a host compiler, which can use only the host-side headers) get abi_<version>_host.
// Defining ROWWISE_ABI_NAMESPACE before the first rowwise include chooses the name instead (it
// must then be the same wherever the same code is meant to be shared).
//
// Outside it, in plain `rowwise`: status, errc, matrix_view and vector_view (status.hpp,
// views.hpp). They are plain data with no kernel behind them, and keeping them there lets a
// caller pass them between translation units built with different targets, or with a host
// compiler.
#pragma once

#include "rowwise/version.hpp"

#define ROWWISE_DETAIL_CAT_(a, b) a##b
#define ROWWISE_DETAIL_CAT(a, b) ROWWISE_DETAIL_CAT_(a, b)
// Two more pastes of their own: a macro does not expand inside its own expansion, and the joins
// below run inside the selection's, which runs inside the name's.
#define ROWWISE_DETAIL_PASTE_(a, b) a##b
#define ROWWISE_DETAIL_PASTE(a, b) ROWWISE_DETAIL_PASTE_(a, b)
#define ROWWISE_DETAIL_SELECT_(a, b) a##b
#define ROWWISE_DETAIL_SELECT(a, b) ROWWISE_DETAIL_SELECT_(a, b)

// How many entries a target list has (1 to 24; nvcc 13's -arch=all lists 12).
#define ROWWISE_DETAIL_COUNT_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, \
                              _19, _20, _21, _22, _23, _24, n, ...)                                           \
  n
#define ROWWISE_DETAIL_COUNT(...) \
  ROWWISE_DETAIL_COUNT_(__VA_ARGS__, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)

// _<a>_<b>...: each entry pasted after an underscore, one macro per list length.
#define ROWWISE_DETAIL_JOIN_1(a) _##a
#define ROWWISE_DETAIL_JOIN_2(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_1(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_3(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_2(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_4(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_3(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_5(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_4(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_6(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_5(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_7(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_6(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_8(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_7(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_9(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_8(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_10(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_9(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_11(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_10(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_12(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_11(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_13(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_12(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_14(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_13(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_15(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_14(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_16(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_15(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_17(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_16(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_18(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_17(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_19(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_18(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_20(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_19(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_21(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_20(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_22(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_21(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_23(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_22(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN_24(a, ...) ROWWISE_DETAIL_PASTE(_##a, ROWWISE_DETAIL_JOIN_23(__VA_ARGS__))
#define ROWWISE_DETAIL_JOIN(...) ROWWISE_DETAIL_SELECT(ROWWISE_DETAIL_JOIN_, ROWWISE_DETAIL_COUNT(__VA_ARGS__))(__VA_ARGS__)

#define ROWWISE_DETAIL_VERSION_NAME_(major, minor, patch) abi_##major##_##minor##_##patch
#define ROWWISE_DETAIL_VERSION_NAME(major, minor, patch) ROWWISE_DETAIL_VERSION_NAME_(major, minor, patch)
#define ROWWISE_DETAIL_ABI_VERSION \
  ROWWISE_DETAIL_VERSION_NAME(ROWWISE_VERSION_MAJOR, ROWWISE_VERSION_MINOR, ROWWISE_VERSION_PATCH)

/// The ABI name for a target list given as its entries (800, 900 -> abi_<version>_sm_800_900).
/// Separate from __CUDA_ARCH_LIST__ so that host tests can check it.
#define ROWWISE_DETAIL_ABI_NAME_FOR(...) \
  ROWWISE_DETAIL_CAT(ROWWISE_DETAIL_CAT(ROWWISE_DETAIL_ABI_VERSION, _sm), ROWWISE_DETAIL_JOIN(__VA_ARGS__))

#ifndef ROWWISE_ABI_NAMESPACE
#ifdef __CUDA_ARCH_LIST__
#define ROWWISE_ABI_NAMESPACE ROWWISE_DETAIL_ABI_NAME_FOR(__CUDA_ARCH_LIST__)
#else
#define ROWWISE_ABI_NAMESPACE ROWWISE_DETAIL_CAT(ROWWISE_DETAIL_ABI_VERSION, _host)
#endif
#endif

/// Open / close namespace rowwise and, inside it, the inline ABI namespace. Every header except
/// status.hpp and views.hpp wraps its declarations in these.
#define ROWWISE_NAMESPACE_BEGIN \
  namespace rowwise {           \
  inline namespace ROWWISE_ABI_NAMESPACE {
#define ROWWISE_NAMESPACE_END \
  }                           \
  }
