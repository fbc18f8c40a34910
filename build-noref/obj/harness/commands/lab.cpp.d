build-noref/obj/harness/commands/lab.cpp.o: harness/commands/lab.cpp \
 harness/catalog.h harness/stage.h cpu/error_bound.h cpu/matrix.h \
 cpu/rounding.h harness/commands.h harness/gpu_backend.h \
 gpu/device_info.h harness/jobs.h harness/bench.h cpu/stats.h \
 harness/cli.h harness/report.h
harness/catalog.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
harness/commands.h:
harness/gpu_backend.h:
gpu/device_info.h:
harness/jobs.h:
harness/bench.h:
cpu/stats.h:
harness/cli.h:
harness/report.h:
