#include "textflag.h"

// The dot products of corr.go with AVX2 and FMA: eight products at once in four running sums.
// n is a multiple of 8; the caller adds the tail.

// func dot8(a, b *float32, n int) float32
TEXT ·dot8(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
loop32:
	CMPQ CX, $32
	JLT loop8
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VMOVUPS 64(SI), Y6
	VMOVUPS 96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP loop32
loop8:
	CMPQ CX, $8
	JLT done
	VMOVUPS (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP loop8
done:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// reverse8 turns eight floats end for end (VPERMPS indices 7…0).
DATA reverse8<>+0(SB)/4, $7
DATA reverse8<>+4(SB)/4, $6
DATA reverse8<>+8(SB)/4, $5
DATA reverse8<>+12(SB)/4, $4
DATA reverse8<>+16(SB)/4, $3
DATA reverse8<>+20(SB)/4, $2
DATA reverse8<>+24(SB)/4, $1
DATA reverse8<>+28(SB)/4, $0
GLOBL reverse8<>(SB), RODATA|NOPTR, $32

// func dotRev8(a, b *float32, n int) float32: Σ a[n-1-i]·b[i], a and b n long.
TEXT ·dotRev8(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VMOVUPS reverse8<>(SB), Y8
	// SI points at a's last eight floats.
	LEAQ -32(SI)(CX*4), SI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
rloop16:
	CMPQ CX, $16
	JLT rloop8
	VPERMPS (SI), Y8, Y4
	VPERMPS -32(SI), Y8, Y5
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	SUBQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP rloop16
rloop8:
	CMPQ CX, $8
	JLT rdone
	VPERMPS (SI), Y8, Y4
	VFMADD231PS (DI), Y4, Y0
	SUBQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP rloop8
rdone:
	VADDPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET
