build-noref/obj/harness/commands/list.cpp.o: harness/commands/list.cpp \
 harness/catalog.h harness/stage.h cpu/error_bound.h cpu/matrix.h \
 cpu/rounding.h harness/cli.h harness/commands.h harness/gpu_backend.h \
 gpu/device_info.h
harness/catalog.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
harness/cli.h:
harness/commands.h:
harness/gpu_backend.h:
gpu/device_info.h:
