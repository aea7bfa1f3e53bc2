// rowwise/numeric/load_policy.hpp — how a global load treats the cache (a plain enum, so that
// host-only code such as dispatch/policy.hpp can name it without device headers).
#pragma once

namespace rowwise {

/// `stream`: the data is read exactly once: ld.global.cs (evict-first), so that it does not
/// displace reused data. `keep`: default caching, for data read again (weights, the streaming
/// regime's second pass) — and, as measured on the H200, for row data too (dispatch/policy.hpp).
enum class load_policy { keep, stream };

}  // namespace rowwise
