build-noref/obj/harness/gpu_backend_none.cpp.o: \
 harness/gpu_backend_none.cpp harness/cli.h harness/stage.h \
 cpu/error_bound.h cpu/matrix.h cpu/rounding.h harness/commands.h \
 harness/gpu_backend.h gpu/device_info.h
harness/cli.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
harness/commands.h:
harness/gpu_backend.h:
gpu/device_info.h:
