#!/usr/bin/env bash
# Installs the Debian packages Tile needs to build and test (run as root, or
# with sudo available). Safe to run again.
set -euo pipefail
pkgs="build-essential autoconf automake libtool pkg-config flex bison
      llvm-22-dev llvm-22-tools zlib1g-dev python3"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi
