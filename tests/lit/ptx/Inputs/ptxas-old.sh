#!/bin/sh
# A ptxas older than CUDA 12.1 (tests/lit/ptx/split-compile.tile): it
# refuses --split-compile as such a ptxas does, logs each command line to
# $PTXAS_LOG, and otherwise runs $REAL_PTXAS.
echo "$*" >> "$PTXAS_LOG"
for a in "$@"; do
    case $a in
    --split-compile) echo "ptxas fatal   : Unknown option '-split-compile'"; exit 255 ;;
    esac
done
exec "$REAL_PTXAS" "$@"
