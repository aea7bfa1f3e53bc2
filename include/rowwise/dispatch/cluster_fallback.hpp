// rowwise/dispatch/cluster_fallback.hpp — plan and launch, and plan again under a smaller cluster
// when the device cannot hold the planned one.
//
// Why: the plan may split rows over clusters of up to 16 CTAs (sm_90's non-portable size), but a
// cluster must fit one GPC, and MIG slices or parts with smaller GPCs hold fewer. The launcher
// finds that out from the occupancy query (launch.cuh prepare_launch: no cluster resident ->
// cudaErrorInvalidClusterSize) before launching anything.
#pragma once

#include <cuda_runtime_api.h>

#include "rowwise/abi.hpp"
#include "rowwise/dispatch/device_limits.hpp"
#include "rowwise/dispatch/plan.hpp"
#include "rowwise/status.hpp"

ROWWISE_NAMESPACE_BEGIN
namespace dispatch {

/// `plan_for(dev)` -> plan, then `launch(plan)` -> status, under the device's learned cluster cap
/// (cluster_cap). When the launch reports cudaErrorInvalidClusterSize for a plan over a cluster,
/// the cap becomes half that cluster (remembered for the device: lower_cluster_cap) and the
/// problem is planned and launched again; each pass plans under a smaller cap than the last, so
/// it ends at clusters of 1 at the latest. An invalid plan returns not_supported(plan_message).
template <class PlanFor, class Launch>
status launch_with_cluster_fallback(device_limits dev, PlanFor plan_for, Launch launch, const char* plan_message) {
  // The cap is also kept here: ordinals past cluster_cap's table are not remembered.
  for (int cap = cluster_cap(dev.device);;) {
    dev.max_cluster = cluster_limit(dev, cap);
    const plan pl = plan_for(static_cast<const device_limits&>(dev));
    if (!pl.valid) return status::not_supported(plan_message);
    const status s = launch(pl);
    if (s.code() != errc::cuda_error || s.cuda_error() != cudaErrorInvalidClusterSize || pl.cluster < 2) return s;
    cap = pl.cluster / 2;
    lower_cluster_cap(dev.device, cap);
  }
}

}  // namespace dispatch
ROWWISE_NAMESPACE_END
