build-noref/obj/harness/stages/lab2/stages.cpp.o: \
 harness/stages/lab2/stages.cpp harness/cli.h harness/stage.h \
 cpu/error_bound.h cpu/matrix.h cpu/rounding.h \
 harness/stages/lab2/blocked_param.h harness/targets.h \
 labs/lab2/locality.h
harness/cli.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
harness/stages/lab2/blocked_param.h:
harness/targets.h:
labs/lab2/locality.h:
