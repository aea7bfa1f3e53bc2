// tests/gpu/api_types.cuh — from the run-time (dtype, wtype) of a test case to the compile-time
// (T, W) of a rowwise call: the one switch the api_*.cu wrappers share.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <rowwise/status.hpp>

#include "gpu/api_wrappers.hpp"

namespace rowwise_test {
namespace api {

template <class T>
struct type_tag {
  using type = T;
};

/// Calls f(type_tag<T>{}, type_tag<W>{}) for the element type t and the weight type w: W = T or
/// float (fp32 elements always have W = float). `what` names the caller in the error status.
template <class F>
rowwise::status with_types(dtype t, wtype w, const char* what, F&& f) {
  switch (t) {
    case dtype::f32: return f(type_tag<float>{}, type_tag<float>{});
    case dtype::f16:
      return w == wtype::same ? f(type_tag<__half>{}, type_tag<__half>{}) : f(type_tag<__half>{}, type_tag<float>{});
    case dtype::bf16:
      return w == wtype::same ? f(type_tag<__nv_bfloat16>{}, type_tag<__nv_bfloat16>{})
                              : f(type_tag<__nv_bfloat16>{}, type_tag<float>{});
  }
  return rowwise::status::invalid(what);
}

}  // namespace api
}  // namespace rowwise_test
