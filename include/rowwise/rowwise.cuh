// rowwise/rowwise.cuh — the whole library: softmax, log_softmax, layer_norm, rms_norm,
// fused_add_rms_norm, their views and status.
#pragma once

#include "rowwise/layer_norm.cuh"
#include "rowwise/rms_norm.cuh"
#include "rowwise/softmax.cuh"
#include "rowwise/status.hpp"
#include "rowwise/version.hpp"
#include "rowwise/views.hpp"
