build-cuda/obj/labs/lab12/summa_nccl.cu.o : labs/lab12/summa_nccl.cu \
    /usr/local/cuda/include/cuda_runtime.h \
    /usr/local/cuda/include/crt/host_config.h \
    /usr/local/cuda/include/builtin_types.h \
    /usr/local/cuda/include/device_types.h \
    /usr/local/cuda/include/crt/host_defines.h \
    /usr/local/cuda/include/driver_types.h \
    /usr/local/cuda/include/vector_types.h \
    /usr/local/cuda/include/surface_types.h \
    /usr/local/cuda/include/texture_types.h \
    /usr/local/cuda/include/library_types.h \
    /usr/local/cuda/include/channel_descriptor.h \
    /usr/local/cuda/include/cuda_runtime_api.h \
    /usr/local/cuda/include/cuda_device_runtime_api.h \
    /usr/local/cuda/include/driver_functions.h \
    /usr/local/cuda/include/vector_functions.h \
    /usr/local/cuda/include/vector_functions.hpp \
    /usr/local/cuda/include/crt/common_functions.h \
    /usr/local/cuda/include/crt/math_functions.h \
    /usr/local/cuda/include/crt/math_functions.hpp \
    /usr/local/cuda/include/crt/device_functions.h \
    /usr/local/cuda/include/crt/device_functions.hpp \
    /usr/local/cuda/include/device_atomic_functions.h \
    /usr/local/cuda/include/device_atomic_functions.hpp \
    /usr/local/cuda/include/crt/device_double_functions.h \
    /usr/local/cuda/include/crt/device_double_functions.hpp \
    /usr/local/cuda/include/sm_20_atomic_functions.h \
    /usr/local/cuda/include/sm_20_atomic_functions.hpp \
    /usr/local/cuda/include/sm_32_atomic_functions.h \
    /usr/local/cuda/include/sm_32_atomic_functions.hpp \
    /usr/local/cuda/include/sm_35_atomic_functions.h \
    /usr/local/cuda/include/sm_60_atomic_functions.h \
    /usr/local/cuda/include/sm_60_atomic_functions.hpp \
    /usr/local/cuda/include/sm_20_intrinsics.h \
    /usr/local/cuda/include/sm_20_intrinsics.hpp \
    /usr/local/cuda/include/sm_30_intrinsics.h \
    /usr/local/cuda/include/sm_30_intrinsics.hpp \
    /usr/local/cuda/include/sm_32_intrinsics.h \
    /usr/local/cuda/include/sm_32_intrinsics.hpp \
    /usr/local/cuda/include/sm_35_intrinsics.h \
    /usr/local/cuda/include/sm_61_intrinsics.h \
    /usr/local/cuda/include/sm_61_intrinsics.hpp \
    /usr/local/cuda/include/crt/sm_70_rt.h \
    /usr/local/cuda/include/crt/sm_70_rt.hpp \
    /usr/local/cuda/include/crt/sm_80_rt.h \
    /usr/local/cuda/include/crt/sm_80_rt.hpp \
    /usr/local/cuda/include/crt/sm_90_rt.h \
    /usr/local/cuda/include/crt/sm_90_rt.hpp \
    /usr/local/cuda/include/crt/sm_100_rt.h \
    /usr/local/cuda/include/crt/sm_100_rt.hpp \
    /usr/local/cuda/include/texture_indirect_functions.h \
    /usr/local/cuda/include/surface_indirect_functions.h \
    /usr/local/cuda/include/crt/cudacc_ext.h \
    /usr/local/cuda/include/device_launch_parameters.h \
    ./labs/lab12/summa_gpu.h \
    ./labs/common/lab12_nccl.h \
    /usr/local/cuda/include/nccl.h \
    /usr/local/cuda/include/cuda_fp16.h \
    /usr/local/cuda/include/nv/target \
    /usr/local/cuda/include/nv/detail/__target_macros \
    /usr/local/cuda/include/nv/detail/__preprocessor \
    /usr/local/cuda/include/cuda_fp16.hpp \
    /usr/local/cuda/include/cuda_bf16.h \
    /usr/local/cuda/include/cuda_bf16.hpp \
    /usr/local/cuda/include/cuda_fp8.h \
    /usr/local/cuda/include/cuda_fp8.hpp \
    ./labs/common/lab12_gpu.h \
    ./labs/common/lab12_lab8_binding.h \
    ./labs/common/lab12_grid.h \
    ./cpu/matrix.h \
    ./gpu/cuda_check.h

/usr/local/cuda/include/cuda_runtime.h:

/usr/local/cuda/include/crt/host_config.h:

/usr/local/cuda/include/builtin_types.h:

/usr/local/cuda/include/device_types.h:

/usr/local/cuda/include/crt/host_defines.h:

/usr/local/cuda/include/driver_types.h:

/usr/local/cuda/include/vector_types.h:

/usr/local/cuda/include/surface_types.h:

/usr/local/cuda/include/texture_types.h:

/usr/local/cuda/include/library_types.h:

/usr/local/cuda/include/channel_descriptor.h:

/usr/local/cuda/include/cuda_runtime_api.h:

/usr/local/cuda/include/cuda_device_runtime_api.h:

/usr/local/cuda/include/driver_functions.h:

/usr/local/cuda/include/vector_functions.h:

/usr/local/cuda/include/vector_functions.hpp:

/usr/local/cuda/include/crt/common_functions.h:

/usr/local/cuda/include/crt/math_functions.h:

/usr/local/cuda/include/crt/math_functions.hpp:

/usr/local/cuda/include/crt/device_functions.h:

/usr/local/cuda/include/crt/device_functions.hpp:

/usr/local/cuda/include/device_atomic_functions.h:

/usr/local/cuda/include/device_atomic_functions.hpp:

/usr/local/cuda/include/crt/device_double_functions.h:

/usr/local/cuda/include/crt/device_double_functions.hpp:

/usr/local/cuda/include/sm_20_atomic_functions.h:

/usr/local/cuda/include/sm_20_atomic_functions.hpp:

/usr/local/cuda/include/sm_32_atomic_functions.h:

/usr/local/cuda/include/sm_32_atomic_functions.hpp:

/usr/local/cuda/include/sm_35_atomic_functions.h:

/usr/local/cuda/include/sm_60_atomic_functions.h:

/usr/local/cuda/include/sm_60_atomic_functions.hpp:

/usr/local/cuda/include/sm_20_intrinsics.h:

/usr/local/cuda/include/sm_20_intrinsics.hpp:

/usr/local/cuda/include/sm_30_intrinsics.h:

/usr/local/cuda/include/sm_30_intrinsics.hpp:

/usr/local/cuda/include/sm_32_intrinsics.h:

/usr/local/cuda/include/sm_32_intrinsics.hpp:

/usr/local/cuda/include/sm_35_intrinsics.h:

/usr/local/cuda/include/sm_61_intrinsics.h:

/usr/local/cuda/include/sm_61_intrinsics.hpp:

/usr/local/cuda/include/crt/sm_70_rt.h:

/usr/local/cuda/include/crt/sm_70_rt.hpp:

/usr/local/cuda/include/crt/sm_80_rt.h:

/usr/local/cuda/include/crt/sm_80_rt.hpp:

/usr/local/cuda/include/crt/sm_90_rt.h:

/usr/local/cuda/include/crt/sm_90_rt.hpp:

/usr/local/cuda/include/crt/sm_100_rt.h:

/usr/local/cuda/include/crt/sm_100_rt.hpp:

/usr/local/cuda/include/texture_indirect_functions.h:

/usr/local/cuda/include/surface_indirect_functions.h:

/usr/local/cuda/include/crt/cudacc_ext.h:

/usr/local/cuda/include/device_launch_parameters.h:

./labs/lab12/summa_gpu.h:

./labs/common/lab12_nccl.h:

/usr/local/cuda/include/nccl.h:

/usr/local/cuda/include/cuda_fp16.h:

/usr/local/cuda/include/nv/target:

/usr/local/cuda/include/nv/detail/__target_macros:

/usr/local/cuda/include/nv/detail/__preprocessor:

/usr/local/cuda/include/cuda_fp16.hpp:

/usr/local/cuda/include/cuda_bf16.h:

/usr/local/cuda/include/cuda_bf16.hpp:

/usr/local/cuda/include/cuda_fp8.h:

/usr/local/cuda/include/cuda_fp8.hpp:

./labs/common/lab12_gpu.h:

./labs/common/lab12_lab8_binding.h:

./labs/common/lab12_grid.h:

./cpu/matrix.h:

./gpu/cuda_check.h:
