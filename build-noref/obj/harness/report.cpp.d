build-noref/obj/harness/report.cpp.o: harness/report.cpp harness/report.h \
 harness/bench.h cpu/stats.h harness/stage.h cpu/error_bound.h \
 cpu/matrix.h cpu/rounding.h harness/cli.h cpu/machine.h cpu/peak.h \
 harness/gpu_backend.h gpu/device_info.h harness/targets.h
harness/report.h:
harness/bench.h:
cpu/stats.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
harness/cli.h:
cpu/machine.h:
cpu/peak.h:
harness/gpu_backend.h:
gpu/device_info.h:
harness/targets.h:
