#!/bin/sh
# Installs the Debian 12 packages gcsim needs that are missing; idempotent. Uses sudo when
# not root (libsimgrid-dev also brings smpicc and smpirun for the DES validation tests;
# clang builds the libFuzzer targets of the CI fuzz smoke run; python3-torch (1.13, CPU)
# runs the PyTorch exporter's end-to-end test, tests/export: measured on a Debian 12 host
# it adds 143 MB of packages to fetch, 610 MB on disk and 8 minutes (at nice 19, beside a
# test run) to the first setup, mostly unpacking; nothing on later runs). libopenblas-dev
# serves cblas_sgemm to `gcsim train` (CMake links it ahead of GSL's reference CBLAS when
# found; issue 16 measured the train harness 4.3x faster with it; accuracy moves slightly
# with the summation order, docs/train.md "BLAS"). strace lets des.temp_file_unnamed see
# that a DES run never names a file in $TMPDIR.
# Everything else the project needs is built from this repository.
set -eu
packages="build-essential cmake pkg-config libsimgrid-dev libgsl-dev libcjson-dev
zlib1g-dev gnuplot-nox dataset-fashion-mnist python3 python3-numpy parallel clang procps
python3-torch libopenblas-dev strace"
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
