#!/usr/bin/env bash
# The test suite: unit and contract tests, the kill matrix, and short smoke runs of the stress
# and benchmark harnesses.
set -euo pipefail
cd "$(dirname "$0")"
mvn -B verify "$@"
