/* shlib_main.c - links libcorpus_shlib.so (rpath $ORIGIN) and runs its loop. */
unsigned long shl_run(const char *secs);

__attribute__((noinline)) unsigned long shlib_caller(const char *secs)
{
	return shl_run(secs) + 1;
}

int main(int argc, char **argv)
{
	return shlib_caller(argc > 1 ? argv[1] : 0) == 0;
}
