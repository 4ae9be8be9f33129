; tma.ll — kernels in the form tilec's sm_90a TMA loads take (NVPTX LLVM
; IR: the tensor map a `ptr byval([128 x i8]) align 64
; "nvvm.grid_constant"` parameter after the ordinary ones, used as the
; plain pointer; mbarriers and shared memory addrspace(3); inline asm for
; mbarrier.init, fence.mbarrier_init, arrive.expect_tx, the 1-D, 2-D and
; 3-D tensor copies, try_wait.parity (a predicate turned into an i32,
; looped on) and inval), for tma_check.c: x86.py must turn them into
; warpsim.c's ws_mbar_* and ws_tma_load calls. Whitespace differs between
; copies of one form (newlines and tabs, spaces, the predicate's name).
;
; tma_{1,2,3}d(out, probe, bytes, iters, c0, c1, c2, d0, d1, d2, map), 64
; threads: thread 0 initializes the mbarrier with a count of 2; then for
; each iteration it: thread 32 arrives (expect_tx of 0 bytes); after a
; bar.sync thread 0 probes try_wait.parity of the other parity (the
; phase before: 1), then on even iterations arrive.expect_tx(bytes),
; a probe (0: bytes outstanding), the copy of the box at
; (c0 + it d0, c1 + it d1, c2 + it d2); on odd ones the copy first (tx
; negative), the probe (0: an arrival outstanding), then expect_tx; then
; probes of the phase's parity (1) and the other one (0 now), stored in
; probe[4 it .. 4 it + 3]. Every thread loops on try_wait.parity(it % 2),
; copies the box's bytes from shared memory to out[it bytes ..] and
; meets the others at a bar.sync. Thread 0 invalidates the mbarrier at
; the end. The 1-D kernel reads c0, d0 only, the 2-D c0, c1, d0, d1.
; llc -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90a and ptxas -arch=sm_90a
; accept this file.
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tma_1d__smem = external addrspace(3) global [0 x i8], align 1024
@tma_1d__bar = internal addrspace(3) global i64 undef, align 8
@tma_2d__smem = external addrspace(3) global [0 x i8], align 1024
@tma_2d__bar = internal addrspace(3) global i64 undef, align 8
@tma_3d__smem = external addrspace(3) global [0 x i8], align 1024
@tma_3d__bar = internal addrspace(3) global i64 undef, align 8
@tma_ring__smem = external addrspace(3) global [0 x i8], align 1024
@tma_ring__bar = internal addrspace(3) global [2 x i64] undef, align 8

define ptx_kernel void @tma_1d(ptr addrspace(1) %out, ptr addrspace(1) %probe, i32 %bytes, i32 %iters, i32 %c0, i32 %c1, i32 %c2, i32 %d0, i32 %d1, i32 %d2, ptr byval([128 x i8]) align 64 "nvvm.grid_constant" %map) {
entry:
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t0 = icmp eq i32 %tid, 0
  %t32 = icmp eq i32 %tid, 32
  %words = lshr i32 %bytes, 2
  br i1 %t0, label %init, label %ready

init:
  call void asm sideeffect "mbarrier.init.shared::cta.b64 [$0], $1;", "l,r,~{memory}"(ptr addrspace(3) @tma_1d__bar, i32 2)
  call void asm sideeffect "fence.mbarrier_init.release.cluster;", "~{memory}"()
  br label %ready

ready:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  br label %loop

loop:
  %it = phi i32 [ 0, %ready ], [ %it.next, %copied ]
  %par = and i32 %it, 1
  %npar = xor i32 %par, 1
  %odd = icmp ne i32 %par, 0
  br i1 %t32, label %second, label %arrived

second:
  call void asm sideeffect "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "l,r,~{memory}"(ptr addrspace(3) @tma_1d__bar, i32 0)
  br label %arrived

arrived:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  br i1 %t0, label %issue, label %wait

issue:
  %w0 = call i32 asm sideeffect "{\0A\09.reg .pred p;\0A\09mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2;\0A\09selp.u32 $0, 1, 0, p;\0A\09}", "=r,l,r,~{memory}"(ptr addrspace(3) @tma_1d__bar, i32 %npar)
  %s0 = mul i32 %it, %d0
  %x0 = add i32 %c0, %s0
  br i1 %odd, label %copy.first, label %expect.first

expect.first:
  call void asm sideeffect "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "l,r,~{memory}"(ptr addrspace(3) @tma_1d__bar, i32 %bytes)
  %w1e = call i32 asm sideeffect "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }", "=r,l,r,~{memory}"(ptr addrspace(3) @tma_1d__bar, i32 %par)
  call void asm sideeffect "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {$2}], [$3];", "l,l,r,l,~{memory}"(ptr addrspace(3) @tma_1d__smem, ptr %map, i32 %x0, ptr addrspace(3) @tma_1d__bar)
  br label %issued

copy.first:
  call void asm sideeffect "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {$2}], [$3];", "l,l,r,l,~{memory}"(ptr addrspace(3) @tma_1d__smem, ptr %map, i32 %x0, ptr addrspace(3) @tma_1d__bar)
  %w1o = call i32 asm sideeffect "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }", "=r,l,r,~{memory}"(ptr addrspace(3) @tma_1d__bar, i32 %par)
  call void asm sideeffect "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "l,r,~{memory}"(ptr addrspace(3) @tma_1d__bar, i32 %bytes)
  br label %issued

issued:
  %w1 = phi i32 [ %w1e, %expect.first ], [ %w1o, %copy.first ]
  %w2 = call i32 asm sideeffect "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }", "=r,l,r,~{memory}"(ptr addrspace(3) @tma_1d__bar, i32 %par)
  %w3 = call i32 asm sideeffect "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }", "=r,l,r,~{memory}"(ptr addrspace(3) @tma_1d__bar, i32 %npar)
  %pi = shl i32 %it, 2
  %pi0 = zext i32 %pi to i64
  %pp0 = getelementptr i32, ptr addrspace(1) %probe, i64 %pi0
  store i32 %w0, ptr addrspace(1) %pp0, align 4
  %pp1 = getelementptr i32, ptr addrspace(1) %pp0, i64 1
  store i32 %w1, ptr addrspace(1) %pp1, align 4
  %pp2 = getelementptr i32, ptr addrspace(1) %pp0, i64 2
  store i32 %w2, ptr addrspace(1) %pp2, align 4
  %pp3 = getelementptr i32, ptr addrspace(1) %pp0, i64 3
  store i32 %w3, ptr addrspace(1) %pp3, align 4
  br label %wait

wait:
  %ok = call i32 asm sideeffect "{\0A\09.reg .pred P1;\0A\09mbarrier.try_wait.parity.shared::cta.b64 P1, [$1], $2;\0A\09selp.u32 $0, 1, 0, P1;\0A\09}", "=r,l,r,~{memory}"(ptr addrspace(3) @tma_1d__bar, i32 %par)
  %done = icmp ne i32 %ok, 0
  br i1 %done, label %copy, label %wait

copy:
  %base = mul i32 %it, %words
  br label %copy.loop

copy.loop:
  %i = phi i32 [ %tid, %copy ], [ %i.next, %copy.body ]
  %more = icmp ult i32 %i, %words
  br i1 %more, label %copy.body, label %copied.sync

copy.body:
  %ii = zext i32 %i to i64
  %sp = getelementptr i32, ptr addrspace(3) @tma_1d__smem, i64 %ii
  %v = load i32, ptr addrspace(3) %sp, align 4
  %oi = add i32 %base, %i
  %oii = zext i32 %oi to i64
  %op = getelementptr i32, ptr addrspace(1) %out, i64 %oii
  store i32 %v, ptr addrspace(1) %op, align 4
  %i.next = add i32 %i, 64
  br label %copy.loop

copied.sync:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  br label %copied

copied:
  %it.next = add i32 %it, 1
  %again = icmp ult i32 %it.next, %iters
  br i1 %again, label %loop, label %end

end:
  br i1 %t0, label %inval, label %exit

inval:
  call void asm sideeffect "mbarrier.inval.shared::cta.b64 [$0];", "l,~{memory}"(ptr addrspace(3) @tma_1d__bar)
  br label %exit

exit:
  ret void
}

define ptx_kernel void @tma_2d(ptr addrspace(1) %out, ptr addrspace(1) %probe, i32 %bytes, i32 %iters, i32 %c0, i32 %c1, i32 %c2, i32 %d0, i32 %d1, i32 %d2, ptr byval([128 x i8]) align 64 "nvvm.grid_constant" %map) {
entry:
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t0 = icmp eq i32 %tid, 0
  %t32 = icmp eq i32 %tid, 32
  %words = lshr i32 %bytes, 2
  br i1 %t0, label %init, label %ready

init:
  call void asm sideeffect "mbarrier.init.shared::cta.b64 [$0], $1;", "l,r,~{memory}"(ptr addrspace(3) @tma_2d__bar, i32 2)
  call void asm sideeffect "fence.mbarrier_init.release.cluster;", "~{memory}"()
  br label %ready

ready:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  br label %loop

loop:
  %it = phi i32 [ 0, %ready ], [ %it.next, %copied ]
  %par = and i32 %it, 1
  %npar = xor i32 %par, 1
  %odd = icmp ne i32 %par, 0
  br i1 %t32, label %second, label %arrived

second:
  call void asm sideeffect "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "l,r,~{memory}"(ptr addrspace(3) @tma_2d__bar, i32 0)
  br label %arrived

arrived:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  br i1 %t0, label %issue, label %wait

issue:
  %w0 = call i32 asm sideeffect "{\0A\09.reg .pred p;\0A\09mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2;\0A\09selp.u32 $0, 1, 0, p;\0A\09}", "=r,l,r,~{memory}"(ptr addrspace(3) @tma_2d__bar, i32 %npar)
  %s0 = mul i32 %it, %d0
  %x0 = add i32 %c0, %s0
  %s1 = mul i32 %it, %d1
  %x1 = add i32 %c1, %s1
  br i1 %odd, label %copy.first, label %expect.first

expect.first:
  call void asm sideeffect "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "l,r,~{memory}"(ptr addrspace(3) @tma_2d__bar, i32 %bytes)
  %w1e = call i32 asm sideeffect "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }", "=r,l,r,~{memory}"(ptr addrspace(3) @tma_2d__bar, i32 %par)
  call void asm sideeffect "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {$2, $3}], [$4];", "l,l,r,r,l,~{memory}"(ptr addrspace(3) @tma_2d__smem, ptr %map, i32 %x0, i32 %x1, ptr addrspace(3) @tma_2d__bar)
  br label %issued

copy.first:
  call void asm sideeffect "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {$2, $3}], [$4];", "l,l,r,r,l,~{memory}"(ptr addrspace(3) @tma_2d__smem, ptr %map, i32 %x0, i32 %x1, ptr addrspace(3) @tma_2d__bar)
  %w1o = call i32 asm sideeffect "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }", "=r,l,r,~{memory}"(ptr addrspace(3) @tma_2d__bar, i32 %par)
  call void asm sideeffect "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "l,r,~{memory}"(ptr addrspace(3) @tma_2d__bar, i32 %bytes)
  br label %issued

issued:
  %w1 = phi i32 [ %w1e, %expect.first ], [ %w1o, %copy.first ]
  %w2 = call i32 asm sideeffect "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }", "=r,l,r,~{memory}"(ptr addrspace(3) @tma_2d__bar, i32 %par)
  %w3 = call i32 asm sideeffect "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }", "=r,l,r,~{memory}"(ptr addrspace(3) @tma_2d__bar, i32 %npar)
  %pi = shl i32 %it, 2
  %pi0 = zext i32 %pi to i64
  %pp0 = getelementptr i32, ptr addrspace(1) %probe, i64 %pi0
  store i32 %w0, ptr addrspace(1) %pp0, align 4
  %pp1 = getelementptr i32, ptr addrspace(1) %pp0, i64 1
  store i32 %w1, ptr addrspace(1) %pp1, align 4
  %pp2 = getelementptr i32, ptr addrspace(1) %pp0, i64 2
  store i32 %w2, ptr addrspace(1) %pp2, align 4
  %pp3 = getelementptr i32, ptr addrspace(1) %pp0, i64 3
  store i32 %w3, ptr addrspace(1) %pp3, align 4
  br label %wait

wait:
  %ok = call i32 asm sideeffect "{\0A\09.reg .pred P1;\0A\09mbarrier.try_wait.parity.shared::cta.b64 P1, [$1], $2;\0A\09selp.u32 $0, 1, 0, P1;\0A\09}", "=r,l,r,~{memory}"(ptr addrspace(3) @tma_2d__bar, i32 %par)
  %done = icmp ne i32 %ok, 0
  br i1 %done, label %copy, label %wait

copy:
  %base = mul i32 %it, %words
  br label %copy.loop

copy.loop:
  %i = phi i32 [ %tid, %copy ], [ %i.next, %copy.body ]
  %more = icmp ult i32 %i, %words
  br i1 %more, label %copy.body, label %copied.sync

copy.body:
  %ii = zext i32 %i to i64
  %sp = getelementptr i32, ptr addrspace(3) @tma_2d__smem, i64 %ii
  %v = load i32, ptr addrspace(3) %sp, align 4
  %oi = add i32 %base, %i
  %oii = zext i32 %oi to i64
  %op = getelementptr i32, ptr addrspace(1) %out, i64 %oii
  store i32 %v, ptr addrspace(1) %op, align 4
  %i.next = add i32 %i, 64
  br label %copy.loop

copied.sync:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  br label %copied

copied:
  %it.next = add i32 %it, 1
  %again = icmp ult i32 %it.next, %iters
  br i1 %again, label %loop, label %end

end:
  br i1 %t0, label %inval, label %exit

inval:
  call void asm sideeffect "mbarrier.inval.shared::cta.b64 [$0];", "l,~{memory}"(ptr addrspace(3) @tma_2d__bar)
  br label %exit

exit:
  ret void
}

define ptx_kernel void @tma_3d(ptr addrspace(1) %out, ptr addrspace(1) %probe, i32 %bytes, i32 %iters, i32 %c0, i32 %c1, i32 %c2, i32 %d0, i32 %d1, i32 %d2, ptr byval([128 x i8]) align 64 "nvvm.grid_constant" %map) {
entry:
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t0 = icmp eq i32 %tid, 0
  %t32 = icmp eq i32 %tid, 32
  %words = lshr i32 %bytes, 2
  br i1 %t0, label %init, label %ready

init:
  call void asm sideeffect "mbarrier.init.shared::cta.b64 [$0], $1;", "l,r,~{memory}"(ptr addrspace(3) @tma_3d__bar, i32 2)
  call void asm sideeffect "fence.mbarrier_init.release.cluster;", "~{memory}"()
  br label %ready

ready:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  br label %loop

loop:
  %it = phi i32 [ 0, %ready ], [ %it.next, %copied ]
  %par = and i32 %it, 1
  %npar = xor i32 %par, 1
  %odd = icmp ne i32 %par, 0
  br i1 %t32, label %second, label %arrived

second:
  call void asm sideeffect "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "l,r,~{memory}"(ptr addrspace(3) @tma_3d__bar, i32 0)
  br label %arrived

arrived:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  br i1 %t0, label %issue, label %wait

issue:
  %w0 = call i32 asm sideeffect "{\0A\09.reg .pred p;\0A\09mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2;\0A\09selp.u32 $0, 1, 0, p;\0A\09}", "=r,l,r,~{memory}"(ptr addrspace(3) @tma_3d__bar, i32 %npar)
  %s0 = mul i32 %it, %d0
  %x0 = add i32 %c0, %s0
  %s1 = mul i32 %it, %d1
  %x1 = add i32 %c1, %s1
  %s2 = mul i32 %it, %d2
  %x2 = add i32 %c2, %s2
  br i1 %odd, label %copy.first, label %expect.first

expect.first:
  call void asm sideeffect "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "l,r,~{memory}"(ptr addrspace(3) @tma_3d__bar, i32 %bytes)
  %w1e = call i32 asm sideeffect "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }", "=r,l,r,~{memory}"(ptr addrspace(3) @tma_3d__bar, i32 %par)
  call void asm sideeffect "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {$2, $3, $4}], [$5];", "l,l,r,r,r,l,~{memory}"(ptr addrspace(3) @tma_3d__smem, ptr %map, i32 %x0, i32 %x1, i32 %x2, ptr addrspace(3) @tma_3d__bar)
  br label %issued

copy.first:
  call void asm sideeffect "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {$2, $3, $4}], [$5];", "l,l,r,r,r,l,~{memory}"(ptr addrspace(3) @tma_3d__smem, ptr %map, i32 %x0, i32 %x1, i32 %x2, ptr addrspace(3) @tma_3d__bar)
  %w1o = call i32 asm sideeffect "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }", "=r,l,r,~{memory}"(ptr addrspace(3) @tma_3d__bar, i32 %par)
  call void asm sideeffect "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "l,r,~{memory}"(ptr addrspace(3) @tma_3d__bar, i32 %bytes)
  br label %issued

issued:
  %w1 = phi i32 [ %w1e, %expect.first ], [ %w1o, %copy.first ]
  %w2 = call i32 asm sideeffect "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }", "=r,l,r,~{memory}"(ptr addrspace(3) @tma_3d__bar, i32 %par)
  %w3 = call i32 asm sideeffect "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }", "=r,l,r,~{memory}"(ptr addrspace(3) @tma_3d__bar, i32 %npar)
  %pi = shl i32 %it, 2
  %pi0 = zext i32 %pi to i64
  %pp0 = getelementptr i32, ptr addrspace(1) %probe, i64 %pi0
  store i32 %w0, ptr addrspace(1) %pp0, align 4
  %pp1 = getelementptr i32, ptr addrspace(1) %pp0, i64 1
  store i32 %w1, ptr addrspace(1) %pp1, align 4
  %pp2 = getelementptr i32, ptr addrspace(1) %pp0, i64 2
  store i32 %w2, ptr addrspace(1) %pp2, align 4
  %pp3 = getelementptr i32, ptr addrspace(1) %pp0, i64 3
  store i32 %w3, ptr addrspace(1) %pp3, align 4
  br label %wait

wait:
  %ok = call i32 asm sideeffect "{\0A\09.reg .pred P1;\0A\09mbarrier.try_wait.parity.shared::cta.b64 P1, [$1], $2;\0A\09selp.u32 $0, 1, 0, P1;\0A\09}", "=r,l,r,~{memory}"(ptr addrspace(3) @tma_3d__bar, i32 %par)
  %done = icmp ne i32 %ok, 0
  br i1 %done, label %copy, label %wait

copy:
  %base = mul i32 %it, %words
  br label %copy.loop

copy.loop:
  %i = phi i32 [ %tid, %copy ], [ %i.next, %copy.body ]
  %more = icmp ult i32 %i, %words
  br i1 %more, label %copy.body, label %copied.sync

copy.body:
  %ii = zext i32 %i to i64
  %sp = getelementptr i32, ptr addrspace(3) @tma_3d__smem, i64 %ii
  %v = load i32, ptr addrspace(3) %sp, align 4
  %oi = add i32 %base, %i
  %oii = zext i32 %oi to i64
  %op = getelementptr i32, ptr addrspace(1) %out, i64 %oii
  store i32 %v, ptr addrspace(1) %op, align 4
  %i.next = add i32 %i, 64
  br label %copy.loop

copied.sync:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  br label %copied

copied:
  %it.next = add i32 %it, 1
  %again = icmp ult i32 %it.next, %iters
  br i1 %again, label %loop, label %end

end:
  br i1 %t0, label %inval, label %exit

inval:
  call void asm sideeffect "mbarrier.inval.shared::cta.b64 [$0];", "l,~{memory}"(ptr addrspace(3) @tma_3d__bar)
  br label %exit

exit:
  ret void
}

; tma_ring(out, bytes, iters, c0, c1, d0, d1, map): two stages (shared
; memory at 0 and 16384, mbarriers bar[0] and bar[1], count 1), box n at
; (c0 + n d0, c1 + n d1) into stage n % 2, waited for with parity
; (n / 2) % 2; both issued first, box n + 2 once stage n is copied out.
; The second stage and its mbarrier are constant GEPs in the asm's
; operands.
define internal void @tma_ring.issue(ptr %map, i32 %n, i32 %bytes, i32 %c0, i32 %c1, i32 %d0, i32 %d1) {
entry:
  %s = and i32 %n, 1
  %first = icmp eq i32 %s, 0
  %s0 = mul i32 %n, %d0
  %x0 = add i32 %c0, %s0
  %s1 = mul i32 %n, %d1
  %x1 = add i32 %c1, %s1
  br i1 %first, label %stage0, label %stage1

stage0:
  call void asm sideeffect "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "l,r,~{memory}"(ptr addrspace(3) @tma_ring__bar, i32 %bytes)
  call void asm sideeffect "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {$2, $3}], [$4];", "l,l,r,r,l,~{memory}"(ptr addrspace(3) @tma_ring__smem, ptr %map, i32 %x0, i32 %x1, ptr addrspace(3) @tma_ring__bar)
  ret void

stage1:
  call void asm sideeffect "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "l,r,~{memory}"(ptr addrspace(3) getelementptr inbounds (i8, ptr addrspace(3) @tma_ring__bar, i64 8), i32 %bytes)
  call void asm sideeffect "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {$2, $3}], [$4];", "l,l,r,r,l,~{memory}"(ptr addrspace(3) getelementptr inbounds (i8, ptr addrspace(3) @tma_ring__smem, i64 16384), ptr %map, i32 %x0, i32 %x1, ptr addrspace(3) getelementptr inbounds (i8, ptr addrspace(3) @tma_ring__bar, i64 8))
  ret void
}

define ptx_kernel void @tma_ring(ptr addrspace(1) %out, i32 %bytes, i32 %iters, i32 %c0, i32 %c1, i32 %d0, i32 %d1, ptr byval([128 x i8]) align 64 "nvvm.grid_constant" %map) {
entry:
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t0 = icmp eq i32 %tid, 0
  %words = lshr i32 %bytes, 2
  br i1 %t0, label %init, label %ready

init:
  call void asm sideeffect "mbarrier.init.shared::cta.b64 [$0], $1;", "l,r,~{memory}"(ptr addrspace(3) @tma_ring__bar, i32 1)
  call void asm sideeffect "mbarrier.init.shared::cta.b64 [$0], $1;", "l,r,~{memory}"(ptr addrspace(3) getelementptr inbounds (i8, ptr addrspace(3) @tma_ring__bar, i64 8), i32 1)
  call void asm sideeffect "fence.mbarrier_init.release.cluster;", "~{memory}"()
  call void @tma_ring.issue(ptr %map, i32 0, i32 %bytes, i32 %c0, i32 %c1, i32 %d0, i32 %d1)
  %two = icmp ugt i32 %iters, 1
  br i1 %two, label %init.second, label %ready

init.second:
  call void @tma_ring.issue(ptr %map, i32 1, i32 %bytes, i32 %c0, i32 %c1, i32 %d0, i32 %d1)
  br label %ready

ready:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  br label %loop

loop:
  %it = phi i32 [ 0, %ready ], [ %it.next, %next ]
  %s = and i32 %it, 1
  %ph = lshr i32 %it, 1
  %par = and i32 %ph, 1
  %boff = shl i32 %s, 3
  %barp = getelementptr i8, ptr addrspace(3) @tma_ring__bar, i32 %boff
  %soff = shl i32 %s, 14
  %src = getelementptr i8, ptr addrspace(3) @tma_ring__smem, i32 %soff
  br label %wait

wait:
  %ok = call i32 asm sideeffect "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }", "=r,l,r,~{memory}"(ptr addrspace(3) %barp, i32 %par)
  %done = icmp ne i32 %ok, 0
  br i1 %done, label %copy, label %wait

copy:
  %base = mul i32 %it, %words
  br label %copy.loop

copy.loop:
  %i = phi i32 [ %tid, %copy ], [ %i.next, %copy.body ]
  %more = icmp ult i32 %i, %words
  br i1 %more, label %copy.body, label %copied

copy.body:
  %ii = zext i32 %i to i64
  %sp = getelementptr i32, ptr addrspace(3) %src, i64 %ii
  %v = load i32, ptr addrspace(3) %sp, align 4
  %oi = add i32 %base, %i
  %oii = zext i32 %oi to i64
  %op = getelementptr i32, ptr addrspace(1) %out, i64 %oii
  store i32 %v, ptr addrspace(1) %op, align 4
  %i.next = add i32 %i, 64
  br label %copy.loop

copied:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %n = add i32 %it, 2
  %later = icmp ult i32 %n, %iters
  %refill = and i1 %later, %t0
  br i1 %refill, label %issue, label %next

issue:
  tail call void @llvm.nvvm.fence.proxy.async.shared_cta()
  call void @tma_ring.issue(ptr %map, i32 %n, i32 %bytes, i32 %c0, i32 %c1, i32 %d0, i32 %d1)
  br label %next

next:
  %it.next = add i32 %it, 1
  %again = icmp ult i32 %it.next, %iters
  br i1 %again, label %loop, label %end

end:
  br i1 %t0, label %inval, label %exit

inval:
  call void asm sideeffect "mbarrier.inval.shared::cta.b64 [$0];", "l,~{memory}"(ptr addrspace(3) @tma_ring__bar)
  call void asm sideeffect "mbarrier.inval.shared::cta.b64 [$0];", "l,~{memory}"(ptr addrspace(3) getelementptr inbounds (i8, ptr addrspace(3) @tma_ring__bar, i64 8))
  br label %exit

exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
declare void @llvm.nvvm.fence.proxy.async.shared_cta()
