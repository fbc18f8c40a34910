build-cuda/obj/labs/common/lab12_gpu.cu.o : labs/common/lab12_gpu.cu \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_runtime.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/crt/host_config.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/builtin_types.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/device_types.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/crt/host_defines.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/driver_types.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/vector_types.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/surface_types.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/texture_types.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/library_types.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/channel_descriptor.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_runtime_api.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_device_runtime_api.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/driver_functions.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/vector_functions.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/vector_functions.hpp \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/crt/common_functions.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/crt/math_functions.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/crt/math_functions.hpp \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/crt/device_functions.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/crt/device_functions.hpp \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/device_atomic_functions.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/device_atomic_functions.hpp \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/crt/device_double_functions.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/crt/device_double_functions.hpp \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/sm_20_atomic_functions.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/sm_20_atomic_functions.hpp \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/sm_32_atomic_functions.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/sm_32_atomic_functions.hpp \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/sm_35_atomic_functions.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/sm_60_atomic_functions.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/sm_60_atomic_functions.hpp \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/sm_20_intrinsics.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/sm_20_intrinsics.hpp \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/sm_30_intrinsics.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/sm_30_intrinsics.hpp \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/sm_32_intrinsics.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/sm_32_intrinsics.hpp \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/sm_35_intrinsics.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/sm_61_intrinsics.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/sm_61_intrinsics.hpp \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/crt/sm_70_rt.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/crt/sm_70_rt.hpp \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/crt/sm_80_rt.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/crt/sm_80_rt.hpp \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/crt/sm_90_rt.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/crt/sm_90_rt.hpp \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/crt/sm_100_rt.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/crt/sm_100_rt.hpp \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/texture_indirect_functions.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/surface_indirect_functions.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/crt/cudacc_ext.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/device_launch_parameters.h \
    ./labs/common/lab12_gpu.h \
    ./labs/common/lab12_lab8_binding.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/cublas_v2.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/cublas_api.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/cuComplex.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_fp16.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/nv/target \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/nv/detail/__target_macros \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/nv/detail/__preprocessor \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_fp16.hpp \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_bf16.h \
    /usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_bf16.hpp \
    ./cpu/matrix.h \
    ./gpu/cuda_check.h

/usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_runtime.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/host_config.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/builtin_types.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/device_types.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/host_defines.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/driver_types.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/vector_types.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/surface_types.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/texture_types.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/library_types.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/channel_descriptor.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_runtime_api.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_device_runtime_api.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/driver_functions.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/vector_functions.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/vector_functions.hpp:

/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/common_functions.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/math_functions.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/math_functions.hpp:

/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/device_functions.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/device_functions.hpp:

/usr/local/cuda/bin/../targets/x86_64-linux/include/device_atomic_functions.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/device_atomic_functions.hpp:

/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/device_double_functions.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/device_double_functions.hpp:

/usr/local/cuda/bin/../targets/x86_64-linux/include/sm_20_atomic_functions.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/sm_20_atomic_functions.hpp:

/usr/local/cuda/bin/../targets/x86_64-linux/include/sm_32_atomic_functions.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/sm_32_atomic_functions.hpp:

/usr/local/cuda/bin/../targets/x86_64-linux/include/sm_35_atomic_functions.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/sm_60_atomic_functions.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/sm_60_atomic_functions.hpp:

/usr/local/cuda/bin/../targets/x86_64-linux/include/sm_20_intrinsics.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/sm_20_intrinsics.hpp:

/usr/local/cuda/bin/../targets/x86_64-linux/include/sm_30_intrinsics.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/sm_30_intrinsics.hpp:

/usr/local/cuda/bin/../targets/x86_64-linux/include/sm_32_intrinsics.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/sm_32_intrinsics.hpp:

/usr/local/cuda/bin/../targets/x86_64-linux/include/sm_35_intrinsics.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/sm_61_intrinsics.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/sm_61_intrinsics.hpp:

/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/sm_70_rt.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/sm_70_rt.hpp:

/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/sm_80_rt.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/sm_80_rt.hpp:

/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/sm_90_rt.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/sm_90_rt.hpp:

/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/sm_100_rt.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/sm_100_rt.hpp:

/usr/local/cuda/bin/../targets/x86_64-linux/include/texture_indirect_functions.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/surface_indirect_functions.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/cudacc_ext.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/device_launch_parameters.h:

./labs/common/lab12_gpu.h:

./labs/common/lab12_lab8_binding.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/cublas_v2.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/cublas_api.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/cuComplex.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_fp16.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/nv/target:

/usr/local/cuda/bin/../targets/x86_64-linux/include/nv/detail/__target_macros:

/usr/local/cuda/bin/../targets/x86_64-linux/include/nv/detail/__preprocessor:

/usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_fp16.hpp:

/usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_bf16.h:

/usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_bf16.hpp:

./cpu/matrix.h:

./gpu/cuda_check.h:
