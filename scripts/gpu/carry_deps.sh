#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Here (Debian, network): unpacks the Debian packages the GPU machine's image lacks (the build
# headers, and RE2/abseil/fmt at run time) into .carry/deps.tgz, which every device call carries
# (carry=[".carry"]) and env.sh unpacks into .carry/deps there: build_on_device.sh builds
# against them, unpack_bin.sh loads them.
set -euo pipefail
cd "$(dirname "$0")/../.."
packages=(libcli11-dev libfmt-dev libfmt9 nlohmann-json3-dev libgtest-dev libgmock-dev googletest
          libre2-dev libre2-9 libabsl-dev libabsl20220623)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download "${packages[@]}" >/dev/null)
rm -rf .carry/deps && mkdir -p .carry/deps
for deb in "$tmp"/*.deb; do dpkg -x "$deb" .carry/deps; done
# abseil's static archives and the docs are never used there (the carry limit is 64 MiB in
# all); GoogleTest ships as static archives only.
find .carry/deps -name 'libabsl*.a' -delete  # RE2 links abseil's shared libraries
rm -rf .carry/deps/usr/share/doc
# Packed: the working tree and the carry share the call's 64 MiB; env.sh unpacks it there.
tar czf .carry/deps.tgz -C .carry deps
rm -rf .carry/deps
ls -l .carry/deps.tgz
