/* SPDX-License-Identifier: MIT */
/*
 * fuzz_addrs - addrs_read() (perfdata/addrs.c, the SYMLAZY_ADDRS parser) on
 * arbitrary bytes. A file it accepts must round-trip: writing it back with
 * perfdata_write_addrs() and reading that gives the same DSOs and addresses.
 */
#include <errno.h>
#include "fuzz_common.h"
#include "perfdata/perfdata.h"

static int same_result(const struct pd_result *a, const struct pd_result *b)
{
	size_t i;

	if (a->nr_dsos != b->nr_dsos)
		return 0;
	for (i = 0; i < a->nr_dsos; i++) {
		const struct pd_dso *x = &a->dsos[i], *y = &b->dsos[i];

		if (x->build_id_size != y->build_id_size || memcmp(x->build_id, y->build_id, x->build_id_size) ||
		    x->nr_addrs != y->nr_addrs || memcmp(x->addrs, y->addrs, x->nr_addrs * sizeof(*x->addrs)))
			return 0;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pd_result res, again;
	char path[64], path2[64], err[200];
	int fd, fd2, r;
	size_t i, j;

	fd = fuzz_memfd(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	r = addrs_read(path, &res, err, sizeof(err));
	if (r < 0) {
		FUZZ_CHECK(res.nr_dsos == 0 && res.dsos == NULL);
		FUZZ_CHECK(r == -EINVAL || r == -ENOMEM || r == -EIO);
		close(fd);
		return 0;
	}
	for (i = 0; i < res.nr_dsos; i++) {
		FUZZ_CHECK(res.dsos[i].build_id_size >= 1 && res.dsos[i].build_id_size <= PD_BUILD_ID_MAX);
		for (j = 1; j < res.dsos[i].nr_addrs; j++)
			FUZZ_CHECK(res.dsos[i].addrs[j - 1] < res.dsos[i].addrs[j]);
	}
	fd2 = fuzz_memfd(NULL, 0, path2, sizeof(path2));
	if (fd2 >= 0) {
		FUZZ_CHECK(perfdata_write_addrs(&res, fd2) == 0);
		r = addrs_read(path2, &again, err, sizeof(err));
		FUZZ_CHECK(r == 0);
		FUZZ_CHECK(same_result(&res, &again));
		perfdata_free(&again);
		close(fd2);
	}
	perfdata_free(&res);
	close(fd);
	return 0;
}
