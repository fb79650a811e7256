#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Run here before a device call while other work is uncommitted in the tree: packs the
# committed HEAD into .carry/tree.tar (with its commit in .carry/git_sha), so the GPU machine
# builds exactly that commit. On the device:
#   mkdir -p /tmp/w && tar xf .carry/tree.tar -C /tmp/w && cp -r .carry /tmp/w/ && cd /tmp/w
cd "$(dirname "$0")/../.." && mkdir -p .carry
git archive --format=tar -o .carry/tree.tar HEAD
git rev-parse --short=12 HEAD > .carry/git_sha
echo "$(cat .carry/git_sha): $(du -h .carry/tree.tar | cut -f1)"
