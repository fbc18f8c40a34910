build-noref/obj/models/abg_model.cpp.o: models/abg_model.cpp \
 models/abg_model.h cpu/matrix.h labs/common/lab12_grid.h
models/abg_model.h:
cpu/matrix.h:
labs/common/lab12_grid.h:
