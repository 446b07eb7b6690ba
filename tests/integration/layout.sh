#!/bin/sh
# The tree's layout as its folder READMEs state it: dependencies run one way
# (shim -> core -> index / perfdata / textsrc -> util), internal headers stay
# in their folder, no product file over 1,200 lines (tests/integration/layout.py).
. "$(dirname "$0")/../lib/common.sh"
python3 "$ROOT/tests/integration/layout.py" "$ROOT"
