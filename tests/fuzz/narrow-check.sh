#!/bin/sh
# narrow-check.sh FILE... — fails when the PTX in FILEs (.ptx, or .tlb
# bundles, whose PTX is plain text) holds 8- or 16-bit integer arithmetic
# whose result ptxas must wrap or sign-extend to 16 bits: add, sub, mul
# (not mul.wide), mad, neg, div, rem, min, max, abs, sad, an arithmetic
# right shift or an ordered comparison on .s16/.u16/.b16/.s8/.u8 (x2
# forms included). lower/narrow.c keeps those out because ptxas gets
# some of them wrong (its header says why). Bitwise operations, left and
# logical right shifts, widening multiplies and equality tests, which the
# NVPTX back end forms by itself from 32-bit code (packing predicates,
# unpacking bytes: `shr.s16 %rs, %rs, 8` takes the high byte of a 16-bit
# register with its sign), are allowed: ptxas re-extends after a left
# shift, and the others need no wrapping. Prints each offending line (FILE:LINE: text); exit 0 clean, 1
# offending lines, 2 usage.
[ $# -gt 0 ] || { echo "usage: $0 FILE.ptx|FILE.tlb..." >&2; exit 2; }
ty='(s16|u16|b16|s8|u8)(x2)?'
ops='(add|sub|mul|mul24|mad|mad24|neg|div|rem|min|max|abs|sad)(\.(lo|hi|sat|rn|cc))*'
cmp='setp\.(lt|le|gt|ge|lo|ls|hi|hs)'
status=0
for f in "$@"; do
    tr -d '\000' <"$f" |
        grep -nE "^[[:space:]]+(@!?%p[0-9]+ +)?($ops\.$ty|shr\.(s16|s8)|$cmp\.$ty)[[:space:]]" |
        grep -vE "shr\.s16[[:space:]]+%rs[0-9]+, %rs[0-9]+, 8;" |
        sed "s|^|$f:|" | grep . && status=1
done
exit $status
