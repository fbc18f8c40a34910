build-noref/obj/harness/run_stage.cpp.o: harness/run_stage.cpp \
 harness/run_stage.h cpu/verify.h cpu/error_bound.h cpu/matrix.h \
 harness/gpu_backend.h gpu/device_info.h harness/stage.h cpu/rounding.h
harness/run_stage.h:
cpu/verify.h:
cpu/error_bound.h:
cpu/matrix.h:
harness/gpu_backend.h:
gpu/device_info.h:
harness/stage.h:
cpu/rounding.h:
