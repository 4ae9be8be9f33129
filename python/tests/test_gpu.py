"""GPU mode. Runs only where torch with CUDA and libtile are present;
elsewhere GPU mode must refuse clearly rather than pretend."""

import pytest

import tile
from tile import gpu


def test_gpu_mode_refuses_clearly_without_runtime(example):
    if gpu.available():
        pytest.skip("the GPU runtime is available")
    with pytest.raises(tile.GPUUnavailableError, match="GPU runtime not available"):
        tile.compile(example("vadd"))
    with pytest.raises(tile.GPUUnavailableError, match="GPU runtime not available"):
        tile.load("vadd.tlb")


def _cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    if not gpu.available():
        pytest.skip("GPU runtime not available: " + gpu.unavailable_reason())
    return torch


def test_gpu_vadd(example):
    torch = _cuda()
    mod = tile.compile(example("vadd"))
    n = 100000
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    mod.vadd(out, x, y, n)
    torch.cuda.synchronize()
    assert torch.equal(out, x + y)
