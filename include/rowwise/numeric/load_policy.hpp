// rowwise/numeric/load_policy.hpp — how a global load treats the cache (a plain enum, so that
// host-only code such as dispatch/policy.hpp can name it without device headers).
#pragma once

#include "rowwise/abi.hpp"

ROWWISE_NAMESPACE_BEGIN

/// `stream`: the data is read exactly once: ld.global.cs (evict-first), so that it does not
/// displace reused data. `keep`: default caching, for data read again (weights, the streaming
/// regime's second pass) — and, as measured on the H200, for row data too (dispatch/policy.hpp).
enum class load_policy { keep, stream };

/// How a 16-byte (or narrower) pack is stored. `keep`: a plain assignment of the pack's word; the
/// compiler decides, and in some instances split it into 4-byte stores (PTX). `vector`: always
/// one vector store (st.global.wb, the default cache policy, through the __stwb intrinsic): needs
/// the pack in consecutive registers, which under a tight register cap costs spills. `stream`:
/// evict-first (st.global.cs). dispatch/policy.hpp chooses per strategy and kind of op.
enum class store_policy { keep, vector, stream };

ROWWISE_NAMESPACE_END
