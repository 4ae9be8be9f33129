#!/usr/bin/env python3
"""ptx_loops.py [PTX] — one line per .entry of the PTX text (a file, or
standard input): what the blocks lying on a loop (a non-trivial strongly
connected part of the entry's control-flow graph) contain, counted by
instruction kind:

    NAME: loop instrs=N ld.global=N words=N shfl=N bar=N shared=N

`words` counts the registers those ld.global fill (a .v4 counts 4: four
f32 elements or eight f16 ones). Used by
lit tests that check what a loop body does per iteration (no shuffles,
no barriers), which FileCheck cannot isolate from the PTX alone: LLVM
lays a rotated loop's latch before its header."""
import re
import sys


def blocks_of(body):
    blocks, order, cur = {"": []}, [""], ""
    for line in body.split("\n"):
        s = line.strip()
        if re.match(r"^\$L\w+:$", s):
            cur = s[:-1]
            blocks[cur] = []
            order.append(cur)
        elif s.endswith(";") and not s.startswith((".", "//")):
            blocks[cur].append(s)
    return blocks, order


def successors(blocks, order):
    succ = {}
    for i, b in enumerate(order):
        out, falls = set(), True
        for s in blocks[b]:
            m = re.search(r"\bbra(?:\.uni)?\s+(\$L\w+);", s)
            if m:
                out.add(m.group(1))
                falls = falls and s.startswith("@")
            if re.match(r"^(@\S+\s+)?(ret|exit)\b", s) and not s.startswith("@"):
                falls = False
        if falls and i + 1 < len(order):
            out.add(order[i + 1])
        succ[b] = out
    return succ


def on_loop(succ, b):
    seen, todo = set(), [b]
    while todo:
        for y in succ[todo.pop()]:
            if y == b:
                return True
            if y not in seen:
                seen.add(y)
                todo.append(y)
    return False


def summary(body):
    blocks, order = blocks_of(body)
    succ = successors(blocks, order)
    n = {"instrs": 0, "ld.global": 0, "words": 0, "shfl": 0, "bar": 0, "shared": 0}
    for b in order:
        if not on_loop(succ, b):
            continue
        for s in blocks[b]:
            op = s.split()[1] if s.startswith("@") else s.split()[0]
            n["instrs"] += 1
            if op.startswith("ld.global"):
                n["ld.global"] += 1
                w = re.search(r"\.v(\d)", op)
                n["words"] += int(w.group(1)) if w else 1
            elif op.startswith("shfl"):
                n["shfl"] += 1
            elif op.startswith("bar"):
                n["bar"] += 1
            elif ".shared" in op:
                n["shared"] += 1
    return " ".join(f"{k}={v}" for k, v in n.items())


def main():
    text = open(sys.argv[1]).read() if len(sys.argv) > 1 else sys.stdin.read()
    for m in re.finditer(r"\.entry (\w+)\((.*?)\n}\n", text, re.S):
        print(f"{m.group(1)}: loop {summary(m.group(2))}")


main()
