build-noref/obj/harness/stages/lab3/commands.cpp.o: \
 harness/stages/lab3/commands.cpp cpu/reference.h cpu/matrix.h \
 harness/bench.h cpu/stats.h harness/stage.h cpu/error_bound.h \
 cpu/rounding.h harness/cli.h harness/commands.h harness/report.h \
 harness/targets.h harness/run_stage.h cpu/verify.h harness/gpu_backend.h \
 gpu/device_info.h labs/common/classical_kernel.h \
 labs/common/strassen_bound.h labs/common/strassen_plan.h
cpu/reference.h:
cpu/matrix.h:
harness/bench.h:
cpu/stats.h:
harness/stage.h:
cpu/error_bound.h:
cpu/rounding.h:
harness/cli.h:
harness/commands.h:
harness/report.h:
harness/targets.h:
harness/run_stage.h:
cpu/verify.h:
harness/gpu_backend.h:
gpu/device_info.h:
labs/common/classical_kernel.h:
labs/common/strassen_bound.h:
labs/common/strassen_plan.h:
