build-noref/obj/harness/registry.cpp.o: harness/registry.cpp \
 harness/catalog.h harness/stage.h cpu/error_bound.h cpu/matrix.h \
 cpu/rounding.h harness/cli.h
harness/catalog.h:
harness/stage.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/rounding.h:
harness/cli.h:
