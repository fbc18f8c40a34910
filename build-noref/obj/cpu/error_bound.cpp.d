build-noref/obj/cpu/error_bound.cpp.o: cpu/error_bound.cpp \
 cpu/error_bound.h cpu/matrix.h
cpu/error_bound.h:
cpu/matrix.h:
