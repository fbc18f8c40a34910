build-noref/obj/harness/stages/lab5/stages.cpp.o: \
 harness/stages/lab5/stages.cpp cpu/machine.h harness/cli.h \
 harness/stage.h cpu/error_bound.h cpu/matrix.h cpu/rounding.h \
 harness/stages/lab5/simd_param.h labs/common/block_sizes.h \
 harness/targets.h labs/lab5/gemm.h labs/common/row_threads.h \
 labs/common/transpose.h labs/lab5/kernels.h peers/blis.h \
 peers/openblas.h
cpu/machine.h:
harness/cli.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
harness/stages/lab5/simd_param.h:
labs/common/block_sizes.h:
harness/targets.h:
labs/lab5/gemm.h:
labs/common/row_threads.h:
labs/common/transpose.h:
labs/lab5/kernels.h:
peers/blis.h:
peers/openblas.h:
