# zerosize.s - hot code beside symbols that have no .size (zero-size in the
# symbol table): perf 6.1 gives a zero-size symbol the start of the next
# symbol as its end (symbols__fixup_end), so a lazy keep-set must keep that
# successor. Called from zerosize_main.c (System V ABI, x86-64).
	.text

# A zero-size local label at the same address as a sized FUNC.
	.p2align 4
	.globl	zs_typed_hot
	.type	zs_typed_hot, @function
zs_entry_label:
zs_typed_hot:
	movq	%rdi, %rax
	movl	$3000, %ecx
	movabsq	$6364136223846793005, %rdx
1:	imulq	%rdx, %rax
	addq	$1442695040888963407 & 0x7fffffff, %rax
	decl	%ecx
	jnz	1b
	ret
	.size	zs_typed_hot, .-zs_typed_hot

# A zero-size label right after zs_typed_hot (alignment padding only).
zs_after_typed:
	.p2align 4
# A global hot "function" that is only a label: NOTYPE, size 0.
	.globl	zs_untyped_hot
zs_untyped_hot:
	movq	%rdi, %rax
	movl	$3000, %ecx
2:	movq	%rax, %rdx
	shlq	$13, %rdx
	xorq	%rdx, %rax
	movq	%rax, %rdx
	shrq	$7, %rdx
	xorq	%rdx, %rax
	decl	%ecx
	jnz	2b
	ret
# Its successor: perf ends zs_untyped_hot here.
zs_untyped_end:
	nop
	nop
	.p2align 4
# Hot code whose only symbol is a hidden global label (the linker turns it
# into a local NOTYPE label with default visibility): zero-size again.
	.globl	zs_hidden_hot
	.hidden	zs_hidden_hot
zs_hidden_hot:
	movq	%rdi, %rax
	movl	$1500, %ecx
4:	rolq	$9, %rax
	xorq	%rcx, %rax
	decl	%ecx
	jnz	4b
	ret
	.p2align 4
# A local zero-size label with hot code, followed directly by a sized function.
zs_local_hot:
	movq	%rdi, %rax
	movl	$2000, %ecx
3:	rorq	$11, %rax
	addq	%rcx, %rax
	decl	%ecx
	jnz	3b
	ret
	.p2align 4
	.globl	zs_cold_typed
	.type	zs_cold_typed, @function
zs_cold_typed:
	leaq	1(%rdi), %rax
zs_cold_inner_label:          # nested in a cold function: never sampled
	addq	$3, %rax
	ret
	.size	zs_cold_typed, .-zs_cold_typed

	.globl	zs_call_local_hot
	.type	zs_call_local_hot, @function
zs_call_local_hot:
	jmp	zs_local_hot
	.size	zs_call_local_hot, .-zs_call_local_hot
# trailing zero-size label
zs_trailer:
	ret

# A call as the last instruction of a function: the callee never returns, so
# the frame-pointer callchain holds a return address equal to the function's
# end, which is the start of the zero-size label after it (perf prints
# zs_after_noreturn+0x0 and ends that label at zs_next_cold).
	.p2align 4
	.globl	zs_call_at_end
	.type	zs_call_at_end, @function
zs_call_at_end:
	pushq	%rbp
	movq	%rsp, %rbp
	call	zs_final_spin
	.size	zs_call_at_end, .-zs_call_at_end
zs_after_noreturn:
	ud2
	.globl	zs_next_cold
	.type	zs_next_cold, @function
zs_next_cold:
	leaq	7(%rdi), %rax
	ret
	.size	zs_next_cold, .-zs_next_cold

# A hot loop typed as an OBJECT (perf loads OBJECT symbols too).
	.p2align 4
	.globl	zs_object_hot
	.type	zs_object_hot, @object
zs_object_hot:
	movq	%rdi, %rax
	movl	$1500, %ecx
5:	addq	%rcx, %rax
	rorq	$5, %rax
	decl	%ecx
	jnz	5b
	ret
	.size	zs_object_hot, .-zs_object_hot

# Code in a section whose name has neither "text" nor "data": perf skips
# NOTYPE labels there (elf_sec__filter) but keeps FUNC symbols.
	.section	.zs_code,"ax",@progbits
	.p2align 4
zs_badsec_label:
	.globl	zs_badsec_func
	.type	zs_badsec_func, @function
zs_badsec_func:
	movq	%rdi, %rax
	movl	$1500, %ecx
6:	imulq	%rcx, %rax
	incq	%rax
	decl	%ecx
	jnz	6b
	ret
	.size	zs_badsec_func, .-zs_badsec_func
zs_badsec_after:
	ret

	.section	.note.GNU-stack,"",@progbits
