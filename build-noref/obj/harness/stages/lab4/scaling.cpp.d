build-noref/obj/harness/stages/lab4/scaling.cpp.o: \
 harness/stages/lab4/scaling.cpp harness/stages/lab4/scaling.h \
 harness/bench.h cpu/stats.h harness/stage.h cpu/error_bound.h \
 cpu/matrix.h cpu/rounding.h cpu/machine.h harness/cli.h \
 harness/commands.h harness/report.h harness/targets.h
harness/stages/lab4/scaling.h:
harness/bench.h:
cpu/stats.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
cpu/machine.h:
harness/cli.h:
harness/commands.h:
harness/report.h:
harness/targets.h:
