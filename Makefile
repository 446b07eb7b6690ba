# symlazy - see README.md. Two commands do everything: `make demo`, `make check`.
CC       ?= cc
PREFIX   ?= /usr/local
DESTDIR  ?=
B        := build
WARN     := -Wall -Wextra -Wshadow -Wno-unused-parameter -Wformat=2
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -D_GNU_SOURCE -fPIC $(WARN) -Icore
SO_FLAGS := -fvisibility=hidden
LIBS     := -lpthread -ldl

CORE_SRC := $(filter-out core/elfops_direct.c,$(wildcard core/*.c)) $(wildcard core/*.cc)
CXX      ?= c++
# core/bccsort.cc is libstdc++'s std::sort, compiled in: no libstdc++.so needed
CXXFLAGS_CORE := -O2 -g -std=gnu++17 -fPIC -fno-exceptions -fno-rtti -Wall -Wextra -Icore
SHIM_SRC  := $(wildcard shim/*.c)
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
TOOL_SRC  := $(wildcard scripts/*.c)
HDRS      := $(wildcard core/*.h shim/*.h)

SO        := $(B)/libsymlazy.so
CORE_A   := $(B)/libsymlazy_core.a
UNIT_BIN  := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
TOOL_BIN  := $(patsubst scripts/%.c,$(B)/bin/%,$(TOOL_SRC))

.PHONY: all deps check demo bench install clean sanitize fuzz unit
all: $(SO) $(TOOL_BIN)

$(B)/so/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SO_FLAGS) -c $< -o $@

$(B)/lib/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(B)/so/%.o: %.cc $(HDRS)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS_CORE) $(SO_FLAGS) -c $< -o $@

$(B)/lib/%.o: %.cc $(HDRS)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS_CORE) -c $< -o $@

# The shim exports only the interposed libelf names (SYMLAZY_EXPORT); it does
# not link libelf: real functions are found at run time (shim/real.c).
OBJ = $(patsubst %.cc,$(B)/$(1)/%.o,$(patsubst %.c,$(B)/$(1)/%.o,$(2)))
$(SO): $(call OBJ,so,$(SHIM_SRC) $(CORE_SRC))
	$(CC) -shared -Wl,-z,defs -Wl,-z,now -Wl,--exclude-libs,ALL -o $@ $^ -liberty $(LIBS)

$(CORE_A): $(call OBJ,lib,$(CORE_SRC) core/elfops_direct.c)
	@rm -f $@
	ar rcs $@ $^

$(B)/tests/%: tests/unit/%.c $(CORE_A) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(CORE_A) -lcmocka -lelf -liberty -lzstd $(LIBS)

$(B)/bin/%: scripts/%.c $(CORE_A) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(CORE_A) -lelf -liberty $(LIBS)

unit: $(UNIT_BIN)

# Installs missing Debian packages when run as root (no-op otherwise).
deps:
	@sh scripts/install-deps.sh

check: deps
	@$(MAKE) --no-print-directory all unit
	@sh tests/run-tests.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@sh scripts/demo.sh

bench: all
	@sh scripts/bench.sh

install: $(SO) $(TOOL_BIN)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/share/doc/symlazy
	install -m 0644 $(SO) $(DESTDIR)$(PREFIX)/lib/libsymlazy.so
	install -m 0644 README.md LICENSE $(DESTDIR)$(PREFIX)/share/doc/symlazy/
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(B)/bin/symlazy-addrs $(DESTDIR)$(PREFIX)/bin/

clean:
	rm -rf $(B)
-include mk/robust.mk
