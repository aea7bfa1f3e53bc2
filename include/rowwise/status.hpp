// rowwise/status.hpp — the result of every rowwise call: never throws, never prints, never aborts.
#pragma once

#include <cuda_runtime_api.h>

namespace rowwise {

enum class errc {
  success = 0,
  invalid_argument,  // an argument breaks the contract; nothing was launched
  unsupported,       // valid, but this build or device cannot run it; nothing was launched
  cuda_error,        // the CUDA runtime reported an error at launch; see cuda_error()
};

class [[nodiscard]] status {
 public:
  constexpr status() = default;  // success

  static constexpr status invalid(const char* message) { return {errc::invalid_argument, message}; }
  static constexpr status not_supported(const char* message) { return {errc::unsupported, message}; }
  static status from_cuda(cudaError_t e, const char* message) {
    status s{e == cudaSuccess ? errc::success : errc::cuda_error, e == cudaSuccess ? "success" : message};
    s.cuda_ = e;
    return s;
  }

  constexpr bool ok() const { return code_ == errc::success; }
  constexpr explicit operator bool() const { return ok(); }
  constexpr errc code() const { return code_; }
  constexpr cudaError_t cuda_error() const { return cuda_; }
  /// Static text naming the op and the offending argument, e.g. "softmax: out.cols != in.cols".
  constexpr const char* message() const { return message_; }

 private:
  constexpr status(errc c, const char* m) : code_(c), message_(m) {}
  errc code_ = errc::success;
  cudaError_t cuda_ = cudaSuccess;
  const char* message_ = "success";
};

}  // namespace rowwise
