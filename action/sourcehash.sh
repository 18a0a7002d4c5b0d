#!/usr/bin/env bash
# Prints the identity of a culprit build: a hash of the module's go.mod,
# go.sum and Go sources (test files and testdata excluded), read from the
# directory $1. action.yml keys its cache of the built binary with it and
# checks a release binary against it; the release workflow records it
# next to the binaries. It needs no Go, so that a job without Go can tell
# whether a release binary was built from its own copy of the action.
set -eo pipefail
cd "${1:?usage: sourcehash.sh DIR}"
find . -name testdata -prune -o -name .git -prune -o -type f \
  \( -name go.mod -o -name go.sum -o \( -name '*.go' ! -name '*_test.go' \) \) -print |
  LC_ALL=C sort | xargs -d '\n' sha256sum | sha256sum | cut -c1-32
