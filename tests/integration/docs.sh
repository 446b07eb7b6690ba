#!/bin/sh
# The docs hold together (scripts/doc-tables.sh --check): README.md at most
# 300 lines and linking every doc/*.md page, every relative link and anchor
# resolving, every measured table between its doc-tables markers.
ROOT=${SYMLAZY_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$ROOT" || exit 1
if out=$(sh scripts/doc-tables.sh --check 2>&1); then
	echo "PASS: docs README.md ($(wc -l <README.md) lines) and doc/*.md: links, anchors, table markers ($out)"
else
	echo "FAIL: docs: $out"
fi
