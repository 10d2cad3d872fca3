#!/usr/bin/env bash
# The two SQLite runs of run.sh once more, right after it (a second run of each setting).
ENGINES=sqlite SUFFIX=-run2 exec "$(dirname "$0")/run.sh"
