# overlap.s - a global NOTYPE label nested inside a sized, hot FUNC: perf's
# answer for addresses after the label depends on its rb-tree shape (notes
# §3.4), so the shim must fall back to the full table ("covered by
# overlapping symbols") and the output must still be identical.
	.text
	.p2align 4
	.globl	ov_outer
	.type	ov_outer, @function
ov_outer:
	movq	%rdi, %rax
	movl	$3000, %ecx
1:	movq	%rax, %rdx
	shlq	$5, %rdx
	addq	%rdx, %rax
	.globl	ov_inner
ov_inner:
	xorq	$0x9e37, %rax
	rolq	$3, %rax
	decl	%ecx
	jnz	1b
	ret
	.size	ov_outer, .-ov_outer
	.section	.note.GNU-stack,"",@progbits
