#!/usr/bin/env bash
# Installs the Debian packages Tile needs to build and test (run as root, or
# with sudo available). Safe to run again: only missing packages are
# fetched. The CUDA toolkit is optional and not installed here.
#   build:   C compiler, autotools, flex, bison, LLVM 22 (NVPTX back end);
#            zlib and zstd archives for a static-LLVM tilec (make wheel)
#   tests:   lit and FileCheck (llvm-22-tools), python3; numpy and pytest
#            for the Python binding (Debian packages or pip, see below)
#   fuzzing: clang-14 and its libFuzzer/sanitizer runtimes; git (run.sh)
set -euo pipefail
pkgs="build-essential autoconf automake libtool pkg-config flex bison
      llvm-22-dev llvm-22-tools zlib1g-dev libzstd-dev python3
      clang-14 libclang-rt-14-dev git"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "install-deps: installing$missing"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

# The Python binding's tests (python/run-tests) need numpy and pytest in
# the python3 that make check runs: Debian's packages when that python3 is
# Debian's, otherwise (pyenv, a virtualenv) pip's.
if ! python3 -c 'import numpy, pytest' 2>/dev/null; then
  case "$(readlink -f "$(command -v python3)")" in
    /usr/bin/*)
      SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
      echo "install-deps: installing python3-numpy python3-pytest"
      $SUDO apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        python3-numpy python3-pytest ;;
    *)
      echo "install-deps: installing numpy and pytest with $(command -v python3) -m pip"
      PIP_ROOT_USER_ACTION=ignore python3 -m pip install -q --disable-pip-version-check \
        numpy pytest ;;
  esac
fi
