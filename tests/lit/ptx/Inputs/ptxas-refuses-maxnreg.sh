#!/bin/sh
# A ptxas that rejects any PTX with a .maxnreg directive (tests/lit/ptx/reg-cap.tile:
# a cap ptxas will not take leaves the uncapped result) and otherwise runs $REAL_PTXAS.
for a in "$@"; do
    case $a in
    *.ptx) if grep -q '^\.maxnreg' "$a"; then echo "ptxas: refusing .maxnreg" >&2; exit 1; fi ;;
    esac
done
exec "$REAL_PTXAS" "$@"
