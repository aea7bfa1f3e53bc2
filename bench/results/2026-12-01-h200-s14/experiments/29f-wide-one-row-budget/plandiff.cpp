#include "rowwise/dispatch/plan.hpp"
#include <cstdio>
namespace dsp = rowwise::dispatch;
int main(){
  dsp::device_limits d; d.sm_count=132; d.cc_major=9; d.max_smem_optin=232448; d.smem_per_sm=233472; d.regs_per_sm=65536; d.clusters=true;
  for (int op=0; op<4; ++op) for (long cols=256; cols<=300000; cols+= (cols<20000?128:1024)) for (long rows : {1l,8l,64l,100000l}) {
    long r = rows==100000 ? (256l<<20)/(2*cols*2) : rows; if (r<1) r=1;
    dsp::problem p; p.rows=r; p.cols=cols; p.elem_bytes=2; p.pack_elems=8; p.head=0; p.row_inputs= op==3?2:1;
    p.staged_op = op!=1; p.column_params=op!=0; p.column_param_count= op==1?2:(op>=2?1:0); p.column_param_bytes=2;
    auto pl = dsp::plan_rows(p,d);
    printf("op%d %6ld x %6ld: k%d cfg%d G%d K%d b%d c%d seg%ld smem%ld pers%d blocks%ld\n", op, r, cols,(int)pl.kind,pl.config,pl.threads_per_row,pl.packs_per_thread,pl.block,pl.cluster,(long)pl.segment_packs,(long)pl.dynamic_smem,(int)pl.persistent,(long)pl.max_useful_blocks);
  }
}
