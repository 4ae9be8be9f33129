# gpu-step.sh — sourced by the GPU check scripts (gpu-runtime-check.sh,
# gpu-tune-check.sh, gpu-python.sh, gpu-ddp.sh): run_step CMD ARGS... runs one check, prints a line
# before and a verdict after, and sets status=1 unless it passed. A skip
# (exit 77: no GPU found) counts as a failure on a machine meant to have
# one.
run_step() {
  echo "=== $*"
  "$@"
  local rc=$?
  case $rc in
    0) echo "=== PASS: $*" ;;
    77) echo "=== SKIPPED (no GPU?): $*"; status=1 ;;
    *) echo "=== FAIL ($rc): $*"; status=1 ;;
  esac
}

# prepared DIR SCRIPT FILE...: checks that `SCRIPT prepare` made each FILE
# under DIR (a message and status 2 when not), then makes $OUT (default
# DIR/out) and exports the environment the tree's Python package runs in
# there (libtile from DIR).
prepared() {
  local dir=$1 script=$2 f
  shift 2
  for f in "$@"; do
    [ -e "$dir/$f" ] || {
      echo "${dir##*/}/$f is missing: run '$script prepare' where tilec builds and carry ${dir##*/}" >&2
      return 2
    }
  done
  OUT=${OUT:-$dir/out}
  mkdir -p "$OUT"
  export OUT TILE_LIBDIR=$dir PYTHONPATH=$PWD/python PYTHONDONTWRITEBYTECODE=1
}
