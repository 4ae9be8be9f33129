; wgmma.ll — kernels in the form tilec's sm_90a lowering gives wgmma
; (NVPTX LLVM IR: shared memory an external addrspace(3) array, the
; product an inline asm setting scale-d's predicate from an i32, outputs
; tied to the accumulators' inputs), for wgmma_check.c: x86.py must turn
; them into ws_wgmma calls. out holds each thread's accumulators (N/2 a
; thread, thread-major), read and written back; da and db are the
; descriptors less the start address of shared memory, which the kernel
; adds. Whitespace differs within each pair: newlines and tabs, spaces;
; so do the proxy fence, commit and wait: intrinsics, or inline asm
; with the wait fencing the accumulators (which stay in flight, tokens,
; until it: ws_wgmma_async). wg_ra_* are the form with A in registers
; (x86.py: ws_wgmma_ra): each thread's four .f16x2 registers of A (i32,
; "r") read from areg (4 a thread, thread-major), B's descriptor less the
; shared memory's start, no imm-trans-a; wg_ra_f16_n16 with its
; accumulators in flight until the asm wait, wg_ra_bf16_n8 at issue.
; llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a and ptxas -arch=sm_90a
; accept this file.
target datalayout = "e-p3:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@wg_f16_n16__smem = external addrspace(3) global [0 x i8], align 1024
@wg_bf16_n8__smem = external addrspace(3) global [0 x i8], align 1024
@wg_ra_f16_n16__smem = external addrspace(3) global [0 x i8], align 1024
@wg_ra_bf16_n8__smem = external addrspace(3) global [0 x i8], align 1024

define ptx_kernel void @wg_f16_n16(ptr addrspace(1) %out, i64 %da, i64 %db, i32 %scale) {
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %first = mul i32 %tid, 8
  %smem = ptrtoint ptr addrspace(3) @wg_f16_n16__smem to i64
  %window = and i64 %smem, 262143
  %start = lshr i64 %window, 4
  %da.s = add i64 %da, %start
  %db.s = add i64 %db, %start
  %i0 = add i32 %first, 0
  %x0 = sext i32 %i0 to i64
  %p0 = getelementptr float, ptr addrspace(1) %out, i64 %x0
  %c0 = load float, ptr addrspace(1) %p0, align 4
  %i1 = add i32 %first, 1
  %x1 = sext i32 %i1 to i64
  %p1 = getelementptr float, ptr addrspace(1) %out, i64 %x1
  %c1 = load float, ptr addrspace(1) %p1, align 4
  %i2 = add i32 %first, 2
  %x2 = sext i32 %i2 to i64
  %p2 = getelementptr float, ptr addrspace(1) %out, i64 %x2
  %c2 = load float, ptr addrspace(1) %p2, align 4
  %i3 = add i32 %first, 3
  %x3 = sext i32 %i3 to i64
  %p3 = getelementptr float, ptr addrspace(1) %out, i64 %x3
  %c3 = load float, ptr addrspace(1) %p3, align 4
  %i4 = add i32 %first, 4
  %x4 = sext i32 %i4 to i64
  %p4 = getelementptr float, ptr addrspace(1) %out, i64 %x4
  %c4 = load float, ptr addrspace(1) %p4, align 4
  %i5 = add i32 %first, 5
  %x5 = sext i32 %i5 to i64
  %p5 = getelementptr float, ptr addrspace(1) %out, i64 %x5
  %c5 = load float, ptr addrspace(1) %p5, align 4
  %i6 = add i32 %first, 6
  %x6 = sext i32 %i6 to i64
  %p6 = getelementptr float, ptr addrspace(1) %out, i64 %x6
  %c6 = load float, ptr addrspace(1) %p6, align 4
  %i7 = add i32 %first, 7
  %x7 = sext i32 %i7 to i64
  %p7 = getelementptr float, ptr addrspace(1) %out, i64 %x7
  %c7 = load float, ptr addrspace(1) %p7, align 4
  tail call void @llvm.nvvm.fence.proxy.async.shared_cta()
  tail call void @llvm.nvvm.wgmma.fence.sync.aligned()
  %r = tail call { float, float, float, float, float, float, float, float } asm sideeffect "{\0A\09.reg .pred p;\0A\09setp.ne.b32 p, $10, 0;\0A\09wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {$0, $1, $2, $3, $4, $5, $6, $7}, $8, $9, p, 1, 1, 0, 1;\0A\09}", "=f,=f,=f,=f,=f,=f,=f,=f,l,l,r,0,1,2,3,4,5,6,7"(i64 %da.s, i64 %db.s, i32 %scale, float %c0, float %c1, float %c2, float %c3, float %c4, float %c5, float %c6, float %c7)
  tail call void asm sideeffect "wgmma.commit_group.sync.aligned;", "~{memory}"()
  %e0 = extractvalue { float, float, float, float, float, float, float, float } %r, 0
  %e1 = extractvalue { float, float, float, float, float, float, float, float } %r, 1
  %e2 = extractvalue { float, float, float, float, float, float, float, float } %r, 2
  %e3 = extractvalue { float, float, float, float, float, float, float, float } %r, 3
  %e4 = extractvalue { float, float, float, float, float, float, float, float } %r, 4
  %e5 = extractvalue { float, float, float, float, float, float, float, float } %r, 5
  %e6 = extractvalue { float, float, float, float, float, float, float, float } %r, 6
  %e7 = extractvalue { float, float, float, float, float, float, float, float } %r, 7
  %w = tail call { float, float, float, float, float, float, float, float } asm sideeffect "wgmma.wait_group.sync.aligned 0;", "=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,~{memory}"(float %e0, float %e1, float %e2, float %e3, float %e4, float %e5, float %e6, float %e7)
  %d0 = extractvalue { float, float, float, float, float, float, float, float } %w, 0
  store float %d0, ptr addrspace(1) %p0, align 4
  %d1 = extractvalue { float, float, float, float, float, float, float, float } %w, 1
  store float %d1, ptr addrspace(1) %p1, align 4
  %d2 = extractvalue { float, float, float, float, float, float, float, float } %w, 2
  store float %d2, ptr addrspace(1) %p2, align 4
  %d3 = extractvalue { float, float, float, float, float, float, float, float } %w, 3
  store float %d3, ptr addrspace(1) %p3, align 4
  %d4 = extractvalue { float, float, float, float, float, float, float, float } %w, 4
  store float %d4, ptr addrspace(1) %p4, align 4
  %d5 = extractvalue { float, float, float, float, float, float, float, float } %w, 5
  store float %d5, ptr addrspace(1) %p5, align 4
  %d6 = extractvalue { float, float, float, float, float, float, float, float } %w, 6
  store float %d6, ptr addrspace(1) %p6, align 4
  %d7 = extractvalue { float, float, float, float, float, float, float, float } %w, 7
  store float %d7, ptr addrspace(1) %p7, align 4
  ret void
}

define ptx_kernel void @wg_bf16_n8(ptr addrspace(1) %out, i64 %da, i64 %db, i32 %scale) {
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %first = mul i32 %tid, 4
  %smem = ptrtoint ptr addrspace(3) @wg_bf16_n8__smem to i64
  %window = and i64 %smem, 262143
  %start = lshr i64 %window, 4
  %da.s = add i64 %da, %start
  %db.s = add i64 %db, %start
  %i0 = add i32 %first, 0
  %x0 = sext i32 %i0 to i64
  %p0 = getelementptr float, ptr addrspace(1) %out, i64 %x0
  %c0 = load float, ptr addrspace(1) %p0, align 4
  %i1 = add i32 %first, 1
  %x1 = sext i32 %i1 to i64
  %p1 = getelementptr float, ptr addrspace(1) %out, i64 %x1
  %c1 = load float, ptr addrspace(1) %p1, align 4
  %i2 = add i32 %first, 2
  %x2 = sext i32 %i2 to i64
  %p2 = getelementptr float, ptr addrspace(1) %out, i64 %x2
  %c2 = load float, ptr addrspace(1) %p2, align 4
  %i3 = add i32 %first, 3
  %x3 = sext i32 %i3 to i64
  %p3 = getelementptr float, ptr addrspace(1) %out, i64 %x3
  %c3 = load float, ptr addrspace(1) %p3, align 4
  tail call void asm sideeffect "fence.proxy.async.shared::cta;", "~{memory}"()
  tail call void @llvm.nvvm.wgmma.fence.sync.aligned()
  %r = tail call { float, float, float, float } asm sideeffect "{ .reg .pred p; setp.ne.b32 p, $6, 0; wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, $4, $5, p, 1, 1, 1, 0; }", "=f,=f,=f,=f,l,l,r,0,1,2,3"(i64 %da.s, i64 %db.s, i32 %scale, float %c0, float %c1, float %c2, float %c3)
  tail call void @llvm.nvvm.wgmma.commit_group.sync.aligned()
  tail call void @llvm.nvvm.wgmma.wait_group.sync.aligned(i64 0)
  %d0 = extractvalue { float, float, float, float } %r, 0
  store float %d0, ptr addrspace(1) %p0, align 4
  %d1 = extractvalue { float, float, float, float } %r, 1
  store float %d1, ptr addrspace(1) %p1, align 4
  %d2 = extractvalue { float, float, float, float } %r, 2
  store float %d2, ptr addrspace(1) %p2, align 4
  %d3 = extractvalue { float, float, float, float } %r, 3
  store float %d3, ptr addrspace(1) %p3, align 4
  ret void
}

define ptx_kernel void @wg_ra_f16_n16(ptr addrspace(1) %out, ptr addrspace(1) %areg, i64 %db, i32 %scale) {
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %first = mul i32 %tid, 8
  %smem = ptrtoint ptr addrspace(3) @wg_ra_f16_n16__smem to i64
  %window = and i64 %smem, 262143
  %start = lshr i64 %window, 4
  %db.s = add i64 %db, %start
  %afirst = mul i32 %tid, 4
  %ai0 = add i32 %afirst, 0
  %ax0 = sext i32 %ai0 to i64
  %ap0 = getelementptr i32, ptr addrspace(1) %areg, i64 %ax0
  %a0 = load i32, ptr addrspace(1) %ap0, align 4
  %ai1 = add i32 %afirst, 1
  %ax1 = sext i32 %ai1 to i64
  %ap1 = getelementptr i32, ptr addrspace(1) %areg, i64 %ax1
  %a1 = load i32, ptr addrspace(1) %ap1, align 4
  %ai2 = add i32 %afirst, 2
  %ax2 = sext i32 %ai2 to i64
  %ap2 = getelementptr i32, ptr addrspace(1) %areg, i64 %ax2
  %a2 = load i32, ptr addrspace(1) %ap2, align 4
  %ai3 = add i32 %afirst, 3
  %ax3 = sext i32 %ai3 to i64
  %ap3 = getelementptr i32, ptr addrspace(1) %areg, i64 %ax3
  %a3 = load i32, ptr addrspace(1) %ap3, align 4
  %i0 = add i32 %first, 0
  %x0 = sext i32 %i0 to i64
  %p0 = getelementptr float, ptr addrspace(1) %out, i64 %x0
  %c0 = load float, ptr addrspace(1) %p0, align 4
  %i1 = add i32 %first, 1
  %x1 = sext i32 %i1 to i64
  %p1 = getelementptr float, ptr addrspace(1) %out, i64 %x1
  %c1 = load float, ptr addrspace(1) %p1, align 4
  %i2 = add i32 %first, 2
  %x2 = sext i32 %i2 to i64
  %p2 = getelementptr float, ptr addrspace(1) %out, i64 %x2
  %c2 = load float, ptr addrspace(1) %p2, align 4
  %i3 = add i32 %first, 3
  %x3 = sext i32 %i3 to i64
  %p3 = getelementptr float, ptr addrspace(1) %out, i64 %x3
  %c3 = load float, ptr addrspace(1) %p3, align 4
  %i4 = add i32 %first, 4
  %x4 = sext i32 %i4 to i64
  %p4 = getelementptr float, ptr addrspace(1) %out, i64 %x4
  %c4 = load float, ptr addrspace(1) %p4, align 4
  %i5 = add i32 %first, 5
  %x5 = sext i32 %i5 to i64
  %p5 = getelementptr float, ptr addrspace(1) %out, i64 %x5
  %c5 = load float, ptr addrspace(1) %p5, align 4
  %i6 = add i32 %first, 6
  %x6 = sext i32 %i6 to i64
  %p6 = getelementptr float, ptr addrspace(1) %out, i64 %x6
  %c6 = load float, ptr addrspace(1) %p6, align 4
  %i7 = add i32 %first, 7
  %x7 = sext i32 %i7 to i64
  %p7 = getelementptr float, ptr addrspace(1) %out, i64 %x7
  %c7 = load float, ptr addrspace(1) %p7, align 4
  tail call void @llvm.nvvm.fence.proxy.async.shared_cta()
  tail call void @llvm.nvvm.wgmma.fence.sync.aligned()
  %r = tail call { float, float, float, float, float, float, float, float } asm sideeffect "{\0A\09.reg .pred p;\0A\09setp.ne.b32 p, $13, 0;\0A\09wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16\0A\09{$0, $1, $2, $3, $4, $5, $6, $7},\0A\09{$8, $9, $10, $11}, $12, p, 1, 1, 1;\0A\09}", "=f,=f,=f,=f,=f,=f,=f,=f,r,r,r,r,l,r,0,1,2,3,4,5,6,7"(i32 %a0, i32 %a1, i32 %a2, i32 %a3, i64 %db.s, i32 %scale, float %c0, float %c1, float %c2, float %c3, float %c4, float %c5, float %c6, float %c7)
  tail call void asm sideeffect "wgmma.commit_group.sync.aligned;", "~{memory}"()
  %e0 = extractvalue { float, float, float, float, float, float, float, float } %r, 0
  %e1 = extractvalue { float, float, float, float, float, float, float, float } %r, 1
  %e2 = extractvalue { float, float, float, float, float, float, float, float } %r, 2
  %e3 = extractvalue { float, float, float, float, float, float, float, float } %r, 3
  %e4 = extractvalue { float, float, float, float, float, float, float, float } %r, 4
  %e5 = extractvalue { float, float, float, float, float, float, float, float } %r, 5
  %e6 = extractvalue { float, float, float, float, float, float, float, float } %r, 6
  %e7 = extractvalue { float, float, float, float, float, float, float, float } %r, 7
  %w = tail call { float, float, float, float, float, float, float, float } asm sideeffect "wgmma.wait_group.sync.aligned 0;", "=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,~{memory}"(float %e0, float %e1, float %e2, float %e3, float %e4, float %e5, float %e6, float %e7)
  %d0 = extractvalue { float, float, float, float, float, float, float, float } %w, 0
  store float %d0, ptr addrspace(1) %p0, align 4
  %d1 = extractvalue { float, float, float, float, float, float, float, float } %w, 1
  store float %d1, ptr addrspace(1) %p1, align 4
  %d2 = extractvalue { float, float, float, float, float, float, float, float } %w, 2
  store float %d2, ptr addrspace(1) %p2, align 4
  %d3 = extractvalue { float, float, float, float, float, float, float, float } %w, 3
  store float %d3, ptr addrspace(1) %p3, align 4
  %d4 = extractvalue { float, float, float, float, float, float, float, float } %w, 4
  store float %d4, ptr addrspace(1) %p4, align 4
  %d5 = extractvalue { float, float, float, float, float, float, float, float } %w, 5
  store float %d5, ptr addrspace(1) %p5, align 4
  %d6 = extractvalue { float, float, float, float, float, float, float, float } %w, 6
  store float %d6, ptr addrspace(1) %p6, align 4
  %d7 = extractvalue { float, float, float, float, float, float, float, float } %w, 7
  store float %d7, ptr addrspace(1) %p7, align 4
  ret void
}

define ptx_kernel void @wg_ra_bf16_n8(ptr addrspace(1) %out, ptr addrspace(1) %areg, i64 %db, i32 %scale) {
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %first = mul i32 %tid, 4
  %smem = ptrtoint ptr addrspace(3) @wg_ra_bf16_n8__smem to i64
  %window = and i64 %smem, 262143
  %start = lshr i64 %window, 4
  %db.s = add i64 %db, %start
  %afirst = mul i32 %tid, 4
  %ai0 = add i32 %afirst, 0
  %ax0 = sext i32 %ai0 to i64
  %ap0 = getelementptr i32, ptr addrspace(1) %areg, i64 %ax0
  %a0 = load i32, ptr addrspace(1) %ap0, align 4
  %ai1 = add i32 %afirst, 1
  %ax1 = sext i32 %ai1 to i64
  %ap1 = getelementptr i32, ptr addrspace(1) %areg, i64 %ax1
  %a1 = load i32, ptr addrspace(1) %ap1, align 4
  %ai2 = add i32 %afirst, 2
  %ax2 = sext i32 %ai2 to i64
  %ap2 = getelementptr i32, ptr addrspace(1) %areg, i64 %ax2
  %a2 = load i32, ptr addrspace(1) %ap2, align 4
  %ai3 = add i32 %afirst, 3
  %ax3 = sext i32 %ai3 to i64
  %ap3 = getelementptr i32, ptr addrspace(1) %areg, i64 %ax3
  %a3 = load i32, ptr addrspace(1) %ap3, align 4
  %i0 = add i32 %first, 0
  %x0 = sext i32 %i0 to i64
  %p0 = getelementptr float, ptr addrspace(1) %out, i64 %x0
  %c0 = load float, ptr addrspace(1) %p0, align 4
  %i1 = add i32 %first, 1
  %x1 = sext i32 %i1 to i64
  %p1 = getelementptr float, ptr addrspace(1) %out, i64 %x1
  %c1 = load float, ptr addrspace(1) %p1, align 4
  %i2 = add i32 %first, 2
  %x2 = sext i32 %i2 to i64
  %p2 = getelementptr float, ptr addrspace(1) %out, i64 %x2
  %c2 = load float, ptr addrspace(1) %p2, align 4
  %i3 = add i32 %first, 3
  %x3 = sext i32 %i3 to i64
  %p3 = getelementptr float, ptr addrspace(1) %out, i64 %x3
  %c3 = load float, ptr addrspace(1) %p3, align 4
  tail call void @llvm.nvvm.fence.proxy.async.shared_cta()
  tail call void @llvm.nvvm.wgmma.fence.sync.aligned()
  %r = tail call { float, float, float, float } asm sideeffect "{ .reg .pred p; setp.ne.b32 p, $9, 0; wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, {$4, $5, $6, $7}, $8, p, 1, 1, 0; }", "=f,=f,=f,=f,r,r,r,r,l,r,0,1,2,3"(i32 %a0, i32 %a1, i32 %a2, i32 %a3, i64 %db.s, i32 %scale, float %c0, float %c1, float %c2, float %c3)
  tail call void @llvm.nvvm.wgmma.commit_group.sync.aligned()
  tail call void @llvm.nvvm.wgmma.wait_group.sync.aligned(i64 0)
  %d0 = extractvalue { float, float, float, float } %r, 0
  store float %d0, ptr addrspace(1) %p0, align 4
  %d1 = extractvalue { float, float, float, float } %r, 1
  store float %d1, ptr addrspace(1) %p1, align 4
  %d2 = extractvalue { float, float, float, float } %r, 2
  store float %d2, ptr addrspace(1) %p2, align 4
  %d3 = extractvalue { float, float, float, float } %r, 3
  store float %d3, ptr addrspace(1) %p3, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.wgmma.fence.sync.aligned()
declare void @llvm.nvvm.fence.proxy.async.shared_cta()
declare void @llvm.nvvm.wgmma.commit_group.sync.aligned()
declare void @llvm.nvvm.wgmma.wait_group.sync.aligned(i64 immarg)
