/* The ELF the cache harness indexes: a small shared object with .symtab,
 * .dynsym, a PLT and a build-id (fuzz/seeds/symindex/small.so). */
	.section .rodata
	.globl fuzz_cache_elf
	.balign 16
fuzz_cache_elf:
	.incbin "fuzz/seeds/symindex/small.so"
	.globl fuzz_cache_elf_end
fuzz_cache_elf_end:
	.section .note.GNU-stack,"",@progbits
