# symlazy - see README.md. Two commands do everything: `make demo`, `make check`.
CC       ?= cc
PREFIX   ?= /usr/local
DESTDIR  ?=
B        := build
WARN     := -Wall -Wextra -Wshadow -Wno-unused-parameter -Wformat=2
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -D_GNU_SOURCE -fPIC $(WARN) -I.
SO_FLAGS := -fvisibility=hidden
LIBS     := -lpthread -ldl
# Each compile also writes build/dep/TARGET.d: the headers its source includes
# (-MMD: not system headers), each also as an empty target (-MP: a deleted
# header does not stop the build). They live apart from the outputs, so globs
# such as build/tests/test_* (tests/run-tests.sh) see programs only; the end of
# this Makefile reads them: touching a header rebuilds only what includes it.
DEPFILE   = $(B)/dep/$(patsubst $(B)/%,%,$@).d
DEPFLAGS  = -MMD -MP -MT $@ -MF $(DEPFILE)

# The library under shim/ and cmd/, one way down (tests/integration/layout.sh):
#   core/ (decisions, core/model/: one file per tool and version)
#   -> index/ (the symbol index) / perfdata/ (perf.data) / textsrc/ (kallsyms, perf maps)
#   / srcline/ (addr2line answers; uses index/'s checksum and cache dir)
#   -> util/
LIB_DIRS := core core/model index perfdata srcline textsrc util
# Modules only programs link (never libsymlazy.so): direct libelf, the
# lookup API, the stats reader and the name index (index/names.h: the
# command and the Go package at go/ read it, the shim does not).
CORE_PROG_SRC := util/elfops_direct.c core/lookup.c core/statsjson.c index/names.c index/names_build.c
CORE_SRC := $(filter-out $(CORE_PROG_SRC),$(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))) \
	    $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.cc))
CXX      ?= c++
# index/bccsort.cc is libstdc++'s std::sort, compiled in: no libstdc++.so needed
CXXFLAGS_CORE := -O2 -g -std=gnu++17 -fPIC -fno-exceptions -fno-rtti -Wall -Wextra -I.
SHIM_SRC  := $(wildcard shim/*.c)
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
# scripts/heapacct.c and scripts/dieranges-exp.c are LD_PRELOAD libraries
# (measuring aids), built apart
TOOL_SRC  := $(filter-out scripts/heapacct.c scripts/dieranges-exp.c,$(wildcard scripts/*.c))
CMD_SRC   := $(wildcard cmd/*.c)

SO        := $(B)/libsymlazy.so
CORE_A   := $(B)/libsymlazy_core.a
UNIT_BIN  := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
TOOL_BIN  := $(patsubst scripts/%.c,$(B)/bin/%,$(TOOL_SRC))
CMD_BIN   := $(B)/bin/symlazy
MAN_PAGES := doc/symlazy.1 doc/libsymlazy.7

.PHONY: all deps check demo bench install clean sanitize fuzz unit deb
all: $(SO) $(TOOL_BIN) $(CMD_BIN) $(B)/bin/heapacct.so

$(B)/so/%.o: %.c
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CC) $(CFLAGS) $(SO_FLAGS) $(DEPFLAGS) -c $< -o $@

$(B)/lib/%.o: %.c
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(B)/so/%.o: %.cc
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CXX) $(CXXFLAGS_CORE) $(SO_FLAGS) $(DEPFLAGS) -c $< -o $@

$(B)/lib/%.o: %.cc
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CXX) $(CXXFLAGS_CORE) $(DEPFLAGS) -c $< -o $@

# The shim exports only the interposed libelf names (SYMLAZY_EXPORT); it does
# not link libelf: real functions are found at run time (shim/resolve.c).
OBJ = $(patsubst %.cc,$(B)/$(1)/%.o,$(patsubst %.c,$(B)/$(1)/%.o,$(2)))
$(SO): $(call OBJ,so,$(SHIM_SRC) $(CORE_SRC))
	$(CC) -shared -Wl,-z,defs -Wl,-z,now -Wl,-soname,libsymlazy.so -Wl,--exclude-libs,ALL -o $@ $^ -liberty $(LIBS)

$(CORE_A): $(call OBJ,lib,$(CORE_SRC) $(CORE_PROG_SRC))
	@rm -f $@
	ar rcs $@ $^

$(B)/tests/%: tests/unit/%.c $(CORE_A)
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CC) $(CFLAGS) $(DEPFLAGS) -o $@ $< $(CORE_A) -lcmocka -lelf -liberty -lzstd $(LIBS) $(TEST_LIBS)

# the perf 6.12 and 7.2 models' tests call libstdc++'s __cxa_demangle (what
# a distribution perf 6.12 or 7.2 demangles C++ names with)
$(B)/tests/test_model_perf612: TEST_LIBS += -lstdc++
$(B)/tests/test_model_perf72: TEST_LIBS += -lstdc++
$(B)/tests/test_symindex: TEST_LIBS += -lstdc++
# test_abbrevord reads both copies back with libdw (the reference)
$(B)/tests/test_abbrevord: TEST_LIBS += -ldw

$(B)/bin/%: scripts/%.c $(CORE_A)
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CC) $(CFLAGS) $(DEPFLAGS) -o $@ $< $(CORE_A) -lelf -liberty $(LIBS)

# the malloc accountant (scripts/heapacct.c): libc only, never linked into the shim
$(B)/bin/heapacct.so: scripts/heapacct.c
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CC) $(CFLAGS) $(DEPFLAGS) -shared -o $@ $< -ldl

# the option (a) experiment of doc/perf.md (not in `all`: writes into libdw's
# private struct Dwarf; needs libdw's headers)
$(B)/bin/dieranges-exp.so: scripts/dieranges-exp.c
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CC) $(CFLAGS) $(DEPFLAGS) -shared -o $@ $< -ldw -ldl

# The `symlazy` command (cmd/): one binary, one module per subcommand.
# the multiarch library directory the command also searches (cmd/common.c)
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
$(B)/cmd/%.o: cmd/%.c
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CC) $(CFLAGS) $(if $(MULTIARCH),-DSYMLAZY_MULTIARCH='"$(MULTIARCH)"') -Icmd $(DEPFLAGS) -c $< -o $@

$(CMD_BIN): $(patsubst cmd/%.c,$(B)/cmd/%.o,$(CMD_SRC)) $(CORE_A)
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(CORE_A) -lelf -liberty $(LIBS)

unit: $(UNIT_BIN)

# Installs missing Debian packages when run as root (no-op otherwise).
deps:
	@sh scripts/install-deps.sh

check: deps
	@$(MAKE) --no-print-directory all unit
	@sh tests/run-tests.sh

# One test by name, with run-tests.sh's environment and closing line
# (tests/README.md): T=test_names (or T=names) builds and runs
# build/tests/test_names; T=srcline runs tests/integration/srcline.sh after
# `make all` (a bare name is the integration script when there is one).
.PHONY: test
test:
	@[ -n "$(T)" ] || { echo "usage: make test T=NAME (test_names, names, srcline, ...: tests/README.md)" >&2; exit 2; }
	@MAKE="$(MAKE)" sh tests/run-tests.sh --make "$(T)"

demo: deps
	@$(MAKE) --no-print-directory all
	@sh scripts/demo.sh

bench: all
	@sh scripts/bench.sh

# $(PREFIX)/bin/symlazy finds $(PREFIX)/lib/libsymlazy.so as ../lib/ (symlazy run).
install: $(SO) $(CMD_BIN)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/share/doc/symlazy
	install -m 0644 $(SO) $(DESTDIR)$(PREFIX)/lib/libsymlazy.so
	install -m 0644 README.md LICENSE $(DESTDIR)$(PREFIX)/share/doc/symlazy/
	install -m 0644 doc/*.md $(DESTDIR)$(PREFIX)/share/doc/symlazy/
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(CMD_BIN) $(DESTDIR)$(PREFIX)/bin/symlazy
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 0644 doc/symlazy.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 doc/libsymlazy.7 $(DESTDIR)$(PREFIX)/share/man/man7/

# Debian packages libsymlazy and symlazy into build/deb/ (scripts/build-deb.sh)
deb: $(SO) $(CMD_BIN)
	@sh scripts/build-deb.sh

clean:
	rm -rf $(B)
-include mk/robust.mk
-include mk/doc.mk
# the header dependencies every compile above (and mk/robust.mk's) wrote
-include $(shell find $(B)/dep -name '*.d' 2>/dev/null)
