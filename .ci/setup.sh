#!/bin/sh
# Installs the Debian 12 packages gcsim needs that are missing; idempotent. Uses sudo when
# not root (libsimgrid-dev also brings smpicc and smpirun for the DES validation tests;
# clang builds the libFuzzer targets of the CI fuzz smoke run).
# Everything else the project needs is built from this repository.
set -eu
packages="build-essential cmake pkg-config libsimgrid-dev libgsl-dev libcjson-dev
zlib1g-dev gnuplot-nox dataset-fashion-mnist python3 python3-numpy parallel clang procps"
missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -z "$missing" ]; then
    echo "setup: all packages present"
    exit 0
fi
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
echo "setup: installing$missing"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing
