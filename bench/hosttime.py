"""hosttime — host time per call of a launch, the one loop the benchmarks
share (bench.py's launch step, py_launch.py, py_launch_cpu.py).

A launch of a tiny kernel returns long before the GPU is done with it, so
timing the host clock around many calls measures the launch path itself:
warm-up calls first (first-use work: module loads, autotuning, caches),
then `sync` (the device idle before the clock starts, so earlier work does
not back the queue up), then the timed loop, then `sync` again so that the
launches really ran before the caller checks their result. With repeats
> 1 the best loop counts (the least disturbed by other processes). The
clock is the wall clock (perf_counter: what a user waits); a benchmark of
CPU work alone on a shared machine may pass time.process_time, which does
not count the time other processes hold the CPU.
"""
import time


def per_call_s(fn, calls=20000, warmup=1000, repeats=1, sync=None, clock=time.perf_counter):
    """Seconds of host time per call of fn() (the best of `repeats` loops
    of `calls` calls each)."""
    for _ in range(warmup):
        fn()
    best = None
    for _ in range(repeats):
        if sync:
            sync()
        t = clock()
        for _ in range(calls):
            fn()
        s = (clock() - t) / calls
        best = s if best is None else min(best, s)
    if sync:
        sync()
    return best
