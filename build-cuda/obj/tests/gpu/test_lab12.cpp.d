build-cuda/obj/tests/gpu/test_lab12.cpp.o: tests/gpu/test_lab12.cpp \
 harness/gpu_backend.h gpu/device_info.h harness/stage.h \
 cpu/error_bound.h cpu/matrix.h cpu/rounding.h tests/lab12_runs.h \
 harness/stages/lab12/launch.h harness/stages/lab12/protocol.h \
 tests/stage_check.h harness/run_stage.h cpu/verify.h harness/targets.h
harness/gpu_backend.h:
gpu/device_info.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
tests/lab12_runs.h:
harness/stages/lab12/launch.h:
harness/stages/lab12/protocol.h:
tests/stage_check.h:
harness/run_stage.h:
cpu/verify.h:
harness/targets.h:
