build-noref/obj/harness/device_check.cpp.o: harness/device_check.cpp \
 harness/cli.h harness/stage.h cpu/error_bound.h cpu/matrix.h \
 cpu/rounding.h harness/gpu_backend.h gpu/device_info.h
harness/cli.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
harness/gpu_backend.h:
gpu/device_info.h:
