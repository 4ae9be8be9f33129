"""softmax.py — examples/softmax.tile from Python, checked against PyTorch.

    python3 examples/softmax.py [ROWS COLS] [--interpret]
    python3 -m tile profile examples/softmax.py       (where it stalls, by line)

On CUDA it runs one configuration (BLOCK the next power of two of COLS, 4
warps), so that a profile sees one kernel rather than an autotuning sweep;
with --interpret (or without a GPU) the interpreter runs it on CPU tensors.
Exit status 0 when the result matches torch.softmax.
"""
import os
import sys

import torch

import tile


def main(argv):
    interpret = "--interpret" in argv or not torch.cuda.is_available()
    sizes = [int(a) for a in argv[1:] if not a.startswith("--")]
    rows, cols = sizes if sizes else (4096, 3000)
    mod = tile.compile(os.path.join(os.path.dirname(os.path.abspath(__file__)), "softmax.tile"),
                       interpret=interpret)
    x = torch.randn(rows, cols, device="cpu" if interpret else "cuda")
    out = torch.empty_like(x)
    block = 1 << (cols - 1).bit_length()
    for _ in range(1 if interpret else 3):
        mod.softmax(out, x, rows, cols, cols, BLOCK=block, warps=4)
    err = (out - torch.softmax(x, 1)).abs().max().item()
    print(f"softmax {rows}x{cols} (BLOCK={block}, {'interpreter' if interpret else 'GPU'}): "
          f"max error {err:.2e}")
    return 0 if err <= 1e-6 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
