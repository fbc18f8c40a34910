build-cuda/obj/harness/stages/lab12/references.cpp.o: \
 harness/stages/lab12/references.cpp cpu/machine.h \
 labs/common/lab12_local_gemm.h solutions/lab5/blis_gemm.h \
 solutions/lab5/blocking.h solutions/lab5/kernels.h solutions/lab5/isa.h
cpu/machine.h:
labs/common/lab12_local_gemm.h:
solutions/lab5/blis_gemm.h:
solutions/lab5/blocking.h:
solutions/lab5/kernels.h:
solutions/lab5/isa.h:
