build-noref/obj/cpu/verify.cpp.o: cpu/verify.cpp cpu/verify.h \
 cpu/error_bound.h cpu/matrix.h cpu/reference.h
cpu/verify.h:
cpu/error_bound.h:
cpu/matrix.h:
cpu/reference.h:
