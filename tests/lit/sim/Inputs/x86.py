# x86.py IN.ll OUT.ll — rewrites tilec's NVPTX LLVM IR (--emit=llvm) into
# IR that llc builds for the host, for warpsim.c to run: one pthread per
# GPU thread. The target lines and attribute groups go (they name sm_90
# and NVPTX-only attributes), address spaces are dropped (global and
# shared memory become ordinary memory; a program's shared scratch is an
# ordinary global, shared by the threads of the one program running), the
# ptx_kernel calling convention becomes the C one, and every
# llvm.nvvm.NAME intrinsic becomes a call of sim_NAME (dots turned into
# underscores), which warpsim.c defines for what these tests use: thread
# and program ids, barriers, and the shuffles. A kernel calling anything
# else fails to link, naming the missing sim_ function.
import re
import sys

text = open(sys.argv[1]).read()
lines = [l for l in text.split("\n")
         if not l.startswith("target ") and not l.startswith("attributes #")]
text = "\n".join(lines)
text = text.replace("ptx_kernel ", "")
text = re.sub(r" addrspace\(\d+\)", "", text)
text = re.sub(r" #\d+", "", text)
text = re.sub(r"@llvm\.nvvm\.([a-z0-9_.]+)",
              lambda m: "@sim_" + m.group(1).replace(".", "_"), text)
text = re.sub(r"declare (noundef )?range\([^)]*\) ", "declare ", text)
open(sys.argv[2], "w").write(text)
