/* SPDX-License-Identifier: MIT */
/*
 * fuzz_perfdata - perfdata_read() (core/perfdata.c) on arbitrary bytes.
 * The bytes are a perf.data file; ops = NULL so no DSO named in the input is
 * opened (build-ids come only from the file). Checks the documented result
 * invariants: address sets sorted and unique, build-id sizes in range, an
 * empty result on error; and that the SYMLAZY_ADDRS writer accepts it.
 */
#include <errno.h>
#include <fcntl.h>
#include "fuzz_common.h"
#include "perfdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pd_result res;
	char path[64], err[200];
	int fd, r;
	size_t i, j;

	fd = fuzz_memfd(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	memset(err, 'X', sizeof(err));
	r = perfdata_read(path, NULL, &res, err, sizeof(err));
	FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
	if (r < 0) {
		FUZZ_CHECK(res.nr_dsos == 0 && res.dsos == NULL);
		FUZZ_CHECK(r == -EINVAL || r == -ENOTSUP || r == -ENOMEM || r == -EIO);
		FUZZ_CHECK(err[0] != '\0' || r == -ENOMEM);
	} else {
		for (i = 0; i < res.nr_dsos; i++) {
			const struct pd_dso *d = &res.dsos[i];

			FUZZ_CHECK(d->build_id_size <= PD_BUILD_ID_MAX);
			FUZZ_CHECK(d->nr_addrs > 0 && d->addrs != NULL);
			for (j = 1; j < d->nr_addrs; j++)
				FUZZ_CHECK(d->addrs[j - 1] < d->addrs[j]);
			if (d->build_id_size)
				FUZZ_CHECK(perfdata_find_build_id(&res, d->build_id, d->build_id_size) != NULL);
		}
		{
			int nul = open("/dev/null", O_WRONLY | O_CLOEXEC);

			if (nul >= 0) {
				FUZZ_CHECK(perfdata_write_addrs(&res, nul) == 0);
				close(nul);
			}
		}
	}
	perfdata_free(&res);
	close(fd);
	return 0;
}
