#include <initializer_list>
#include "rowwise/dispatch/policy.hpp"
#include <cstdio>
namespace d = rowwise::dispatch;
int main(){ for (int b : {32, 64, 96, 128, 160, 192, 256, 384}) { int r = d::row_kernel_registers_for(false, true, 4, b, 32, b); int c = d::ctas_by_registers(r, b);
  printf("block %d regs %d ctas %d inflight %d KiB prefetch %d\n", b, r, c, c*b*128/1024, (int)d::prefetch_next_row(r, b, 128, b*128)); } }
