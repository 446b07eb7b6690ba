# mk/doc.mk - the docs: README.md (at most 300 lines) and doc/*.md.
# Included from the Makefile (`-include mk/doc.mk`); nothing here is part of
# `make all` or `make check`.
#
#   make doc-tables    regenerate every measured table of README.md and doc/*.md
#                      from the bench scripts (scripts/doc-tables.sh): each block
#                      between `<!-- doc-tables: CMD -->` and `<!-- /doc-tables -->`
#                      becomes CMD's output. Runs the benchmarks: needs `make`,
#                      root for perf record and BPF, and takes a long time (stock
#                      bpftrace alone several minutes). Narrow it with
#                      DOC_TABLES_ONLY=REGEX (commands matching it), e.g.
#                      make doc-tables DOC_TABLES_ONLY=bench-dwfl
#   make doc-tables-list   the commands, without running them
#   make doc-check     README.md <= 300 lines, every doc page linked from it,
#                      relative links and #anchors resolve, markers balanced
#   make doc-paths     repository paths named in the docs that do not exist
DOC_FILES := README.md $(wildcard doc/*.md)

.PHONY: doc-tables doc-tables-list doc-check doc-paths
doc-tables: all
	sh scripts/doc-tables.sh $(if $(DOC_TABLES_ONLY),--only '$(DOC_TABLES_ONLY)') $(DOC_FILES)

doc-tables-list:
	@sh scripts/doc-tables.sh --list $(DOC_FILES)

doc-check:
	@sh scripts/doc-tables.sh --check $(DOC_FILES)

doc-paths:
	@sh scripts/doc-tables.sh --paths $(DOC_FILES)
