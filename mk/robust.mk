# mk/robust.mk - sanitizer builds, libFuzzer harnesses, robustness helpers.
# Included from the Makefile (`-include mk/robust.mk`). Needs clang (14) and
# compiler-rt (libclang-rt-14-dev); nothing here is part of `make all`.
#
#   make sanitize      build/asan/ and build/tsan/: libsymlazy.so built with
#                      -fsanitize=address,undefined resp. -fsanitize=thread,
#                      plus tests/unit/test_threads.c built with the same
#                      sanitizer (build/asan/test_threads, build/tsan/test_threads)
#   make fuzz          build the harnesses and run each for FUZZ_SECONDS
#                      (default 60, or 6 h with FUZZ_EXECS); prints executions and crashes per harness
#   make fuzz FUZZ_EXECS=10000000 FUZZ_SECONDS=7200
#                      run each until 10M executions (FUZZ_SECONDS = cap)
#   make fuzz-replay   run every harness over its seeds, corpus and
#                      tests/regress/<harness>/, then FUZZ_REPLAY_SECONDS
#                      (default 10) of fuzzing; non-zero exit on a crash
#   make fuzz-build    only build build/fuzz/<harness>
#
# Preloading a sanitizer shim: the sanitizer runtime must be in the process
# first. Either the program is built with the same -fsanitize (its static
# runtime exports the __asan_/__tsan_ symbols the shim needs), or the shared
# runtime comes first in LD_PRELOAD, e.g. for perf:
#   LD_PRELOAD=$(ASAN_RT):build/asan/libsymlazy.so ASAN_OPTIONS=detect_leaks=0 perf report
CLANG        ?= clang
SAN_CFLAGS   := -O1 -g -fno-omit-frame-pointer -std=gnu11 -D_GNU_SOURCE -fPIC -I. \
		-Wall -Wextra -Wno-unused-parameter
ASAN_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined
TSAN_SAN     := -fsanitize=thread
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined
CLANG_RTDIR   = $(shell $(CLANG) -print-resource-dir 2>/dev/null)/lib/linux
ASAN_RT       = $(CLANG_RTDIR)/libclang_rt.asan-x86_64.so
TSAN_RT       = $(CLANG_RTDIR)/libclang_rt.tsan-x86_64.so

SAN_SO_SRC   := $(SHIM_SRC) $(CORE_SRC)
# index/bccsort.cc (libstdc++'s std::sort, no runtime library needed) next to the C sources
CLANGXX      ?= clang++
SAN_CXXFLAGS := -O1 -g -fno-omit-frame-pointer -std=gnu++17 -fPIC -fno-exceptions -fno-rtti -I.
# after -fsanitize=undefined: its C++-only checks need libstdc++'s type_info
SAN_CXX_NO   := -fno-sanitize=function,vptr
SAN_OBJ       = $(patsubst %.cc,$(B)/$(1)/obj/%.o,$(patsubst %.c,$(B)/$(1)/obj/%.o,$(2)))
# index/symindex.c demangles with libiberty, as the main Makefile links it
SAN_LIBS     := -liberty $(LIBS)
SAN_PROGS    := test_threads
FUZZ_NAMES   := perfdata symindex cache config addrs names a2l dbgsec abbrevord elfimg
FUZZ_BIN     := $(patsubst %,$(B)/fuzz/fuzz_%,$(FUZZ_NAMES))
FUZZ_SECONDS ?=
FUZZ_EXECS   ?= 0
FUZZ_REPLAY_SECONDS ?= 10

.PHONY: sanitize fuzz fuzz-build fuzz-replay fuzz-seeds

# ---- sanitizer shims and programs ---------------------------------------
$(B)/asan/obj/%.o: %.c
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CLANG) $(SAN_CFLAGS) $(ASAN_SAN) $(SO_FLAGS) $(DEPFLAGS) -c $< -o $@

$(B)/tsan/obj/%.o: %.c
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CLANG) $(SAN_CFLAGS) $(TSAN_SAN) $(SO_FLAGS) $(DEPFLAGS) -c $< -o $@

$(B)/asan/obj/%.o: %.cc
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CLANGXX) $(SAN_CXXFLAGS) $(ASAN_SAN) $(SAN_CXX_NO) $(SO_FLAGS) $(DEPFLAGS) -c $< -o $@

$(B)/tsan/obj/%.o: %.cc
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CLANGXX) $(SAN_CXXFLAGS) $(TSAN_SAN) $(SO_FLAGS) $(DEPFLAGS) -c $< -o $@

# No -z defs: the __asan_/__tsan_ symbols come from the runtime in the host.
$(B)/asan/libsymlazy.so: $(call SAN_OBJ,asan,$(SAN_SO_SRC))
	$(CLANG) -shared $(ASAN_SAN) -Wl,-z,now -Wl,--exclude-libs,ALL -o $@ $^ $(SAN_LIBS)

$(B)/tsan/libsymlazy.so: $(call SAN_OBJ,tsan,$(SAN_SO_SRC))
	$(CLANG) -shared $(TSAN_SAN) -Wl,-z,now -Wl,--exclude-libs,ALL -o $@ $^ $(SAN_LIBS)

$(B)/asan/test_threads: tests/unit/test_threads.c
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CLANG) $(SAN_CFLAGS) $(ASAN_SAN) $(DEPFLAGS) -o $@ $< -lcmocka -lelf -lpthread

$(B)/tsan/test_threads: tests/unit/test_threads.c
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CLANG) $(SAN_CFLAGS) $(TSAN_SAN) $(DEPFLAGS) -o $@ $< -lcmocka -lelf -lpthread

sanitize: $(B)/asan/libsymlazy.so $(B)/tsan/libsymlazy.so \
	  $(patsubst %,$(B)/asan/%,$(SAN_PROGS)) $(patsubst %,$(B)/tsan/%,$(SAN_PROGS))
	@echo "sanitize: built $(B)/asan/ and $(B)/tsan/ (runtimes: $(ASAN_RT), $(TSAN_RT))"

# ---- libFuzzer -----------------------------------------------------------
$(B)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CLANG) $(SAN_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link $(DEPFLAGS) -c $< -o $@

$(B)/fuzz/obj/%.o: %.cc
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CLANGXX) $(SAN_CXXFLAGS) $(FUZZ_SAN) $(SAN_CXX_NO) -fsanitize=fuzzer-no-link $(DEPFLAGS) -c $< -o $@

FUZZ_INDEX_OBJ := $(call SAN_OBJ,fuzz,$(CORE_SRC) util/elfops_direct.c index/names.c index/names_build.c)

$(B)/fuzz/obj/fuzz/cache_elf.o: fuzz/cache_elf.S fuzz/seeds/symindex/small.so
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CLANG) $(DEPFLAGS) -c $< -o $@

$(B)/fuzz/fuzz_cache: fuzz/fuzz_cache.c $(FUZZ_INDEX_OBJ) $(B)/fuzz/obj/fuzz/cache_elf.o
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CLANG) $(SAN_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer $(DEPFLAGS) -o $@ $< $(FUZZ_INDEX_OBJ) \
		$(B)/fuzz/obj/fuzz/cache_elf.o -lelf $(SAN_LIBS)

$(B)/fuzz/fuzz_%: fuzz/fuzz_%.c $(FUZZ_INDEX_OBJ)
	@mkdir -p $(dir $@) $(dir $(DEPFILE))
	$(CLANG) $(SAN_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer $(DEPFLAGS) -o $@ $< $(FUZZ_INDEX_OBJ) -lelf $(SAN_LIBS)

fuzz-build: $(FUZZ_BIN)

# Seed corpora: fuzz/seeds/<h> (committed) plus generated inputs
# (malformed ELF variants from scripts/gen-malformed.py).
fuzz-seeds: fuzz-build
	@sh fuzz/run.sh seeds $(FUZZ_NAMES)

fuzz: fuzz-seeds
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_EXECS=$(FUZZ_EXECS) sh fuzz/run.sh fuzz $(FUZZ_NAMES)

fuzz-replay: fuzz-seeds
	@FUZZ_SECONDS=$(FUZZ_REPLAY_SECONDS) sh fuzz/run.sh replay $(FUZZ_NAMES)
