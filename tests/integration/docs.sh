#!/bin/sh
# The docs hold together (scripts/doc-tables.sh --check): README.md at most
# 300 lines and linking every doc/*.md page, every relative link and anchor
# resolving, every measured table between its doc-tables markers.
. "$(dirname "$0")/../lib/common.sh"
cd "$ROOT" || exit 1
if out=$(sh scripts/doc-tables.sh --check 2>&1); then
	pass "docs README.md ($(wc -l <README.md) lines) and doc/*.md: links, anchors, table markers ($out)"
else
	fail "docs: $out"
fi
