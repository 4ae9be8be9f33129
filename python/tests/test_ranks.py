"""The package as the ranks of a data-parallel job use it: processes that
compile the same bundle at once share one tilec run through the bundle
cache and never read a partial bundle; tile.torch operators launch on
the device of their tensors; examples/torch/ddp_train.py under torchrun
with gloo on the CPU (the kernels in the interpreter) ends with the
parameters of a single-process run, with 2 ranks and with 1 (skipped
without torch). The launches' contexts per device are checked on the
driver double (fakedriver_cases.py)."""

import os
import subprocess
import sys
import time

import pytest

from conftest import EXAMPLES

RANKS = 4
# A tilec double: --version, --emit=deps (the source alone), and -o OUT:
# logs its pid to $FAKE_TILEC_LOG, writes half the bundle, waits, writes
# the rest (a process finding OUT mid-way would read half).
FAKE_TILEC = """\
import os, sys, time
args = sys.argv[1:]
if args == ["--version"]:
    print("fake tilec 1")
elif "--emit=deps" in args:
    print(args[-1])
else:
    with open(os.environ["FAKE_TILEC_LOG"], "a") as f:
        f.write(f"{os.getpid()}\\n")
    with open(args[args.index("-o") + 1], "wb") as f:
        f.write(b"A" * 4096)
        f.flush()
        time.sleep(1.0)
        f.write(b"B" * 4096)
"""
COMPILE = """\
import sys
from tile import _cache
p = _cache.compile_bundle(sys.argv[1], [], [], "sm_90a", False, None, None)
print(p, open(p, "rb").read() == b"A" * 4096 + b"B" * 4096)
"""


def test_concurrent_compiles_run_tilec_once(tmp_path):
    """RANKS processes compile one source at once, started while the
    first one's tilec is writing: tilec runs once (the cache's lock), every
    process gets the whole bundle (atomic rename), no lock or temporary
    file is left."""
    tilec = tmp_path / "tilec"
    tilec.write_text(f"#!{sys.executable}\n" + FAKE_TILEC)
    tilec.chmod(0o755)
    src = tmp_path / "k.tile"
    src.write_text("kernel k() { }\n")
    cache, log = tmp_path / "cache", tmp_path / "tilec.log"
    env = dict(os.environ, TILEC=str(tilec), TILE_CACHE_DIR=str(cache),
               FAKE_TILEC_LOG=str(log))
    procs = []
    for _ in range(RANKS):
        procs.append(subprocess.Popen([sys.executable, "-c", COMPILE, str(src)], env=env,
                                      stdout=subprocess.PIPE, text=True))
        if len(procs) == 1:             # the others start while it writes
            while not log.exists():
                assert procs[0].poll() is None
                time.sleep(0.01)
    outs = [p.communicate(timeout=60)[0].split() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert len({o[0] for o in outs}) == 1 and all(o[1] == "True" for o in outs), outs
    assert len(log.read_text().split()) == 1
    assert [f.name for f in cache.iterdir()] == [os.path.basename(outs[0][0])]


def test_custom_op_launches_on_its_tensors_device(monkeypatch):
    """tile.torch makes the tensors' CUDA device current for the launch
    when another is (as torch's operators do), and touches nothing
    otherwise."""
    torch = pytest.importorskip("torch")
    import tile.torch as tt
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    guard = tt._on_device(torch.device("cuda", 1))
    assert isinstance(guard, torch.cuda.device) and guard.idx == 1
    for device in (torch.device("cuda", 0), torch.device("cpu")):
        assert not isinstance(tt._on_device(device), torch.cuda.device)


@pytest.mark.parametrize("ranks", [2, 1])
def test_ddp_example_gloo(ranks):
    """examples/torch/ddp_train.py under torchrun, gloo, the interpreter:
    the ranks agree and match the single-process run."""
    torch = pytest.importorskip("torch")
    if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
        pytest.skip("this torch has no gloo back end")
    r = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone",
                        f"--nproc_per_node={ranks}",
                        os.path.join(EXAMPLES, "torch", "ddp_train.py"),
                        "--device", "cpu", "--steps", "3"],
                       capture_output=True, text=True, timeout=300)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert f"PASS  {ranks} rank(s) hold the same parameters" in out
    assert "PASS  parameters after 3 steps within 1e-05 of the single-process run" in out
    assert all(f"rank {i}: device cpu" in out for i in range(ranks))
