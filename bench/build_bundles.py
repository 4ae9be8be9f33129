"""build_bundles — builds the benchmark's Tile bundles (bench/configs.py).

    python3 bench/build_bundles.py TILEC OUTDIR [--arch sm_90] [--sweep] [--only PREFIX]

Runs where tilec runs (it needs LLVM). For each entry it writes
OUTDIR/src/NAME.tile (the source with its warps fixed) and OUTDIR/NAME.tlb
(tilec --arch ARCH -D ...: PTX and, where ptxas is present, the cubin).
With --sweep it builds the tensor-core sweep's bundles instead
(configs.SWEEP_BUNDLES: stages fixed in the source as well). --only PREFIX
builds only the bundles whose name starts with PREFIX (`--only user_`:
step `user`'s). A failure is
reported and the rest are still built; exit status 1 if any failed.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from configs import SWEEP_BUNDLES, TILE_BUNDLES  # noqa: E402


def fix_attr(src, name, value):
    """The source with exactly one value of the attribute `name` (warps or
    stages): an @name(N) or a `name = [...]` list in @tune replaced, else
    @name(value) put before the kernel."""
    if value is None:
        return src
    if re.search(rf"@{name}\(\d+\)", src):
        return re.sub(rf"@{name}\(\d+\)", f"@{name}({value})", src)
    if re.search(rf"{name}\s*=\s*\[[^\]]*\]", src):
        return re.sub(rf"{name}\s*=\s*\[[^\]]*\]", f"{name} = [{value}]", src)
    return re.sub(r"^kernel ", f"@{name}({value})\nkernel ", src, count=1, flags=re.M)


def main():
    args = sys.argv[1:]
    arch = "sm_90"
    if "--arch" in args:
        i = args.index("--arch")
        arch = args[i + 1]
        del args[i:i + 2]
    bundles = [b if len(b) == 6 else b + (None,) for b in TILE_BUNDLES]   # stages
    if "--only" in args:
        i = args.index("--only")
        bundles = [b for b in bundles if b[0].startswith(args[i + 1])]
        del args[i:i + 2]
    if "--sweep" in args:
        args.remove("--sweep")
        bundles = SWEEP_BUNDLES
    if len(args) != 2:
        sys.exit("usage: build_bundles.py TILEC OUTDIR [--arch sm_90] [--sweep] [--only PREFIX]")
    tilec, out = args
    os.makedirs(os.path.join(out, "src"), exist_ok=True)
    env = dict(os.environ)
    env.setdefault("TILE_STDLIB", os.path.join(ROOT, "stdlib"))
    failed = []
    for name, source, _kernel, defines, warps, stages in bundles:
        with open(os.path.join(ROOT, source)) as f:
            text = fix_attr(fix_attr(f.read(), "warps", warps), "stages", stages)
        src = os.path.join(out, "src", name + ".tile")
        with open(src, "w") as f:
            f.write(text)
        cmd = [tilec, f"--arch={arch}"]
        for k, v in defines.items():
            cmd += ["-D", f"{k}={v}"]
        cmd += [src, "-o", os.path.join(out, name + ".tlb")]
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if r.returncode:
            failed.append(name)
            print(f"FAILED {name}: {' '.join(cmd)}\n{r.stderr}", file=sys.stderr)
        else:
            print(f"bundle {name}.tlb  ({' '.join(cmd[1:-3])})")
    print(f"{len(bundles) - len(failed)} of {len(bundles)} bundles built in {out}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
