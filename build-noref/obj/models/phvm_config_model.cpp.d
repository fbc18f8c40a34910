build-noref/obj/models/phvm_config_model.cpp.o: \
 models/phvm_config_model.cpp models/phvm_config_model.h
models/phvm_config_model.h:
