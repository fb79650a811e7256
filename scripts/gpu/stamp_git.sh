#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Run here before a device call: records the commit (and whether the tree is dirty) for the
# copy that travels to the GPU machine, which has no .git.
cd "$(dirname "$0")/../.." && mkdir -p .carry
sha=$(git rev-parse --short=12 HEAD)
[ -n "$(git status --porcelain --untracked-files=no)" ] && sha="$sha-dirty"
echo "$sha" > .carry/git_sha && echo "$sha"
