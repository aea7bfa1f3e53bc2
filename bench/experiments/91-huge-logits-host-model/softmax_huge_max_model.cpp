// Experiment 91 (session 36, host only, no GPU): a host model of softmax_op's per-thread
// exponentials, their (m, d) merge and both write-backs (recomputed: finalize + apply; in place:
// finalize_in_place), with times_log2e as fixed in session 36 (|lo| > 64: slope 1, no remainder),
// or as before with -DBEFORE_FIX. ex2.approx.ftz is modelled by exp2f with subnormal results
// flushed to 0. Rows of 64 values split 1 / 4 / 8 per thread: 8 logits then a mask fill, all
// mask fill, mask fills a few ulps apart, and one +inf among them (must give NaN), for fills
// -1e9, -1.5e9, -1e10, -FLT_MAX, bf16 lowest, fp16 lowest, +2e9; against exp in double.
// Build: g++ -O1 -std=c++17 softmax_huge_max_model.cpp [-DBEFORE_FIX]
// Result (session 36): 0 of 84 rows off with the fix, 27 of 84 without (NaN or off by more than
// rtol 1e-5).
#include <cmath>
#include <cfloat>
#include <cstdio>
#include <vector>
#include <algorithm>
static float ex2(float x) { float y = exp2f(x); return (std::fabs(y) < 0x1p-126f) ? 0.0f * y : y; }
static const float L2E = 1.4426950408889634f;
struct mul { float hi, lo, slope; };
static mul times(float m) { volatile float hi = m * L2E; float lo = fmaf(m, L2E, -hi);
#ifndef BEFORE_FIX
  if (std::fabs(lo) > 64.0f) return {m, 0, 1};
#endif
  return {hi, lo, L2E}; }
struct val { float m, d; };
static float rescale(float x) { return ex2(x * L2E); }
static val merge(val a, val b) { float m = std::isnan(a.m)||std::isnan(b.m) ? NAN : std::max(a.m, b.m); if (m == -INFINITY) return {m, a.d + b.d}; return {m, a.d * rescale(a.m - m) + b.d * rescale(b.m - m)}; }
int main() {
  int bad = 0;
  const float fills[] = {-1e9f, -1.5e9f, -1e10f, -FLT_MAX, -3.3895313892515355e38f, -65504.0f, 2e9f};
  for (int kind = 0; kind < 4; ++kind)
  for (float fill : fills) for (int per : {1, 4, 8}) {
    const int n = 64; std::vector<float> x(n);
    for (int i = 0; i < n; ++i) x[i] = kind == 0 ? (i < 8 ? 0.25f * i : fill)
                                     : kind == 1 ? fill
                                     : kind == 2 ? (i % 7 == 3 ? fill : fill - std::max(std::fabs(fill) * 1e-6f, 1.0f) * (i % 5))
                                     : (i == 5 ? INFINITY : fill);
    // reference
    double M = -INFINITY; for (float v : x) M = std::max(M, (double)v);
    double D = 0; for (float v : x) D += std::exp((double)v - M);
    std::vector<double> ref(n); for (int i = 0; i < n; ++i) ref[i] = std::exp((double)x[i] - M) / D;
    bool ref_nan = std::isinf(M) && M > 0;
    // threads
    std::vector<val> mine(n / per); val tot{-INFINITY, 0};
    std::vector<float> e(n);
    for (int t = 0; t < n / per; ++t) {
      float m = -INFINITY; for (int i = 0; i < per; ++i) m = std::max(m, x[t * per + i]);
      mul s = times(m == -INFINITY ? 0.0f : m);
      float d = 0; for (int i = 0; i < per; ++i) { e[t*per+i] = ex2(fmaf(x[t * per + i], s.slope, -s.hi)); d += e[t*per+i]; }
      mine[t] = {m, d * ex2(-s.lo)};
      tot = merge(tot, mine[t]);
    }
    // finalize + apply (recomputing form), and in-place form
    mul s = times(tot.m);
    float scale = ex2(-s.lo) / tot.d;
    double worst = 0, worst_ip = 0; bool nan_out = false, nan_ip = false;
    for (int t = 0; t < n / per; ++t) {
      float f = (mine[t].m == -INFINITY) ? 0 : ex2(fmaf(mine[t].m - tot.m, L2E, -times(mine[t].m).lo)) / tot.d;
      if (tot.d != tot.d) f = tot.d;
      for (int i = 0; i < per; ++i) {
        int k = t * per + i;
        float y = ex2(fmaf(x[k], s.slope, -s.hi)) * scale;
        float yi = e[k] * f;
        if (std::isnan(y)) nan_out = true; else worst = std::max(worst, std::fabs(y - ref[k]) / (1e-30 + ref[k]) * (ref[k] > 1e-30));
        if (std::isnan(yi)) nan_ip = true; else worst_ip = std::max(worst_ip, std::fabs(yi - ref[k]) / (1e-30 + ref[k]) * (ref[k] > 1e-30));
        if (ref[k] <= 1e-30 && !std::isnan(y) && y > 1e-30) worst = 1;
      }
    }
    bool ok = ref_nan ? (nan_out && nan_ip) : (!nan_out && !nan_ip && worst < 1e-5 && worst_ip < 1e-5);
    if (!ok) ++bad;
    printf("%s kind %d fill %-12g per %d: d=%g (M=%g) worst rel %.2e / in place %.2e %s\n", ok ? "ok " : "BAD", kind, fill, per, tot.d, tot.m, worst, worst_ip, nan_out ? "(NaN)" : "");
  }
  printf("%d bad\n", bad);
}
