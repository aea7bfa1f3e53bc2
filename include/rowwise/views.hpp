// rowwise/views.hpp — non-owning views of device memory: a matrix of rows and a vector.
#pragma once

#include <cstdint>
#include <type_traits>

namespace rowwise {

/// rows x cols elements; row r starts at data + r * row_stride (elements, row_stride >= cols).
template <class T>
struct matrix_view {
  T* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t row_stride = 0;

  /// A view of mutable elements converts to a view of const ones (inputs take either).
  template <class U = T, class = std::enable_if_t<!std::is_const_v<U>>>
  constexpr operator matrix_view<const U>() const { return {data, rows, cols, row_stride}; }
};

/// size elements at data; a view with size 0 or data null is "absent" (an optional weight).
template <class T>
struct vector_view {
  T* data = nullptr;
  int64_t size = 0;

  constexpr bool present() const { return data != nullptr && size != 0; }
  template <class U = T, class = std::enable_if_t<!std::is_const_v<U>>>
  constexpr operator vector_view<const U>() const { return {data, size}; }
};

template <class T>
constexpr matrix_view<T> matrix(T* data, int64_t rows, int64_t cols) {
  return {data, rows, cols, cols};
}

template <class T>
constexpr matrix_view<T> matrix(T* data, int64_t rows, int64_t cols, int64_t row_stride) {
  return {data, rows, cols, row_stride};
}

template <class T>
constexpr vector_view<T> vector(T* data, int64_t size) {
  return {data, size};
}

}  // namespace rowwise
