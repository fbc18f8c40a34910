build-cuda/obj/harness/stages/lab12/references_gpu.cpp.o: \
 harness/stages/lab12/references_gpu.cpp labs/common/lab12_lab8_binding.h \
 solutions/lab8/lab8.h
labs/common/lab12_lab8_binding.h:
solutions/lab8/lab8.h:
