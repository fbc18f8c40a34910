build-noref/obj/cpu/matrix.cpp.o: cpu/matrix.cpp cpu/matrix.h
cpu/matrix.h:
