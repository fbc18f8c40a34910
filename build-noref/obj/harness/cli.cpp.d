build-noref/obj/harness/cli.cpp.o: harness/cli.cpp harness/cli.h \
 harness/stage.h cpu/error_bound.h cpu/matrix.h cpu/rounding.h \
 cpu/verify.h harness/catalog.h harness/targets.h
harness/cli.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
cpu/verify.h:
harness/catalog.h:
harness/targets.h:
