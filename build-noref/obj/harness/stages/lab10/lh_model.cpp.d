build-noref/obj/harness/stages/lab10/lh_model.cpp.o: \
 harness/stages/lab10/lh_model.cpp harness/csv_file.h harness/cli.h \
 harness/stage.h cpu/error_bound.h cpu/matrix.h cpu/rounding.h \
 harness/gpu_backend.h gpu/device_info.h harness/report.h harness/bench.h \
 cpu/stats.h harness/stages/lab10/lab10.h gpu/occupancy.h \
 models/lh_model.h models/roofline_stages.h harness/targets.h \
 models/lh_kernels.h
harness/csv_file.h:
harness/cli.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
harness/gpu_backend.h:
gpu/device_info.h:
harness/report.h:
harness/bench.h:
cpu/stats.h:
harness/stages/lab10/lab10.h:
gpu/occupancy.h:
models/lh_model.h:
models/roofline_stages.h:
harness/targets.h:
models/lh_kernels.h:
