build-noref/obj/models/lh_kernels.cpp.o: models/lh_kernels.cpp \
 models/lh_kernels.h cpu/matrix.h models/lh_model.h
models/lh_kernels.h:
cpu/matrix.h:
models/lh_model.h:
