build-noref/obj/models/lh_model.cpp.o: models/lh_model.cpp \
 models/lh_model.h
models/lh_model.h:
