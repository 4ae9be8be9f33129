#!/bin/sh
# A ptxas that appends the entries of the PTX it is given, sorted, as one
# line to $PTXAS_LOG, then runs $REAL_PTXAS (tests/lit/ptx/reg-cap.tile:
# which modules the register caps assemble).
for a in "$@"; do
    case $a in
    *.ptx) echo "run: $(grep -o '\.entry [A-Za-z0-9_]*' "$a" | sed 's/\.entry //' | sort | tr '\n' ' ')" >> "$PTXAS_LOG" ;;
    esac
done
exec "$REAL_PTXAS" "$@"
