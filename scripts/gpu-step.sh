# gpu-step.sh — sourced by the GPU check scripts (gpu-runtime-check.sh,
# gpu-tune-check.sh): run_step CMD ARGS... runs one check, prints a line
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
