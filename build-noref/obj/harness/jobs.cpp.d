build-noref/obj/harness/jobs.cpp.o: harness/jobs.cpp harness/jobs.h \
 harness/bench.h cpu/stats.h harness/stage.h cpu/error_bound.h \
 cpu/matrix.h cpu/rounding.h harness/cli.h harness/gpu_backend.h \
 gpu/device_info.h
harness/jobs.h:
harness/bench.h:
cpu/stats.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
harness/cli.h:
harness/gpu_backend.h:
gpu/device_info.h:
