build-noref/obj/cpu/reference.cpp.o: cpu/reference.cpp cpu/reference.h \
 cpu/matrix.h
cpu/reference.h:
cpu/matrix.h:
