build-noref/obj/harness/stages/lab10/lh_command.cpp.o: \
 harness/stages/lab10/lh_command.cpp harness/cli.h harness/stage.h \
 cpu/error_bound.h cpu/matrix.h cpu/rounding.h harness/commands.h \
 harness/csv_file.h harness/gpu_backend.h gpu/device_info.h \
 harness/report.h harness/bench.h cpu/stats.h \
 harness/stages/lab10/lab10.h gpu/occupancy.h models/lh_model.h \
 models/roofline_stages.h models/lh_kernels.h
harness/cli.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
harness/commands.h:
harness/csv_file.h:
harness/gpu_backend.h:
gpu/device_info.h:
harness/report.h:
harness/bench.h:
cpu/stats.h:
harness/stages/lab10/lab10.h:
gpu/occupancy.h:
models/lh_model.h:
models/roofline_stages.h:
models/lh_kernels.h:
