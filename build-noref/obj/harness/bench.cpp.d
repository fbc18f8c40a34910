build-noref/obj/harness/bench.cpp.o: harness/bench.cpp harness/bench.h \
 cpu/stats.h harness/stage.h cpu/error_bound.h cpu/matrix.h \
 cpu/rounding.h cpu/peak.h cpu/machine.h harness/gpu_backend.h \
 gpu/device_info.h harness/run_stage.h cpu/verify.h harness/targets.h
harness/bench.h:
cpu/stats.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
cpu/peak.h:
cpu/machine.h:
harness/gpu_backend.h:
gpu/device_info.h:
harness/run_stage.h:
cpu/verify.h:
harness/targets.h:
