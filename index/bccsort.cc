// SPDX-License-Identifier: MIT
//
// bccsort.cc - libbcc's std::sort of a module's symbol vector, reproduced with
// the same algorithm. bcc 0.26 (src/cc/bcc_syms.cc ProcSyms::Module::
// load_sym_table) calls std::sort(syms_.begin(), syms_.end()) with
// Symbol::operator< comparing `start` alone (src/cc/syms.h). std::sort is not
// stable: where many symbols share a start (identical-code-folded functions)
// which one bcc finds depends on every comparison the introsort makes on the
// whole vector. The permutation std::sort produces depends only on the keys
// and their order, not on the element type, so sorting our entries by start
// with libstdc++'s std::sort (bits/stl_algo.h: __introsort_loop, threshold 16,
// median-of-three, __final_insertion_sort; the template is compiled into this
// object, no libstdc++.so is needed) gives bcc's order exactly when libbcc was
// built against the same libstdc++ algorithm (Debian 12: GCC 12; unchanged in
// libstdc++ for many releases). tests/integration/bpf.sh compares with libbcc.
#include <algorithm>

extern "C" {
#include "index/bccsyms.h"
}

namespace {
struct Ent {
	struct sl_bcc_ent e;
	bool operator<(const Ent &rhs) const { return e.start < rhs.e.start; }
};
static_assert(sizeof(Ent) == sizeof(struct sl_bcc_ent), "layout");
}

extern "C" void sl_bcc_sort(struct sl_bcc_ent *e, size_t n)
{
	Ent *p = reinterpret_cast<Ent *>(e);

	std::sort(p, p + n);
}
