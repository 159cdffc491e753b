// cuDNN through dlopen: the library of the cuDNN onnxview was built with (the toolkit's folder, then the loader's
// search path), and the few functions the backend calls.  See cuda/dnn.h for why it is not linked.
#include "config.h"

#include <stdio.h>
#include <type_traits>

#include "src/exec/cuda/dl.h"
#include "src/exec/cuda/dnn.h"

#define OV_STR2(x) #x
#define OV_STR(x) OV_STR2(x)
#define CUDNN_SONAME "libcudnn.so." OV_STR(CUDNN_MAJOR)

// The table's types are written out in cuda/dnn.h (a contract with the host simulator): they must be cudnn.h's.
#define CU_DNN_SAME(member, fn) \
	static_assert(std::is_same<decltype(cu_dnn_api::member), decltype(&fn)>::value, \
		      "cu_dnn_api::" #member " does not have the type of " #fn " in cudnn.h")
CU_DNN_SAME(get_version, cudnnGetVersion);
CU_DNN_SAME(get_error_string, cudnnGetErrorString);
CU_DNN_SAME(create, cudnnCreate);
CU_DNN_SAME(destroy, cudnnDestroy);
CU_DNN_SAME(set_stream, cudnnSetStream);
CU_DNN_SAME(create_tensor_descriptor, cudnnCreateTensorDescriptor);
CU_DNN_SAME(destroy_tensor_descriptor, cudnnDestroyTensorDescriptor);
CU_DNN_SAME(set_tensor_nd_descriptor, cudnnSetTensorNdDescriptor);
CU_DNN_SAME(create_filter_descriptor, cudnnCreateFilterDescriptor);
CU_DNN_SAME(destroy_filter_descriptor, cudnnDestroyFilterDescriptor);
CU_DNN_SAME(set_filter_nd_descriptor, cudnnSetFilterNdDescriptor);
CU_DNN_SAME(create_convolution_descriptor, cudnnCreateConvolutionDescriptor);
CU_DNN_SAME(destroy_convolution_descriptor, cudnnDestroyConvolutionDescriptor);
CU_DNN_SAME(set_convolution_nd_descriptor, cudnnSetConvolutionNdDescriptor);
CU_DNN_SAME(set_convolution_group_count, cudnnSetConvolutionGroupCount);
CU_DNN_SAME(set_convolution_math_type, cudnnSetConvolutionMathType);
CU_DNN_SAME(get_convolution_nd_forward_output_dim, cudnnGetConvolutionNdForwardOutputDim);
CU_DNN_SAME(get_convolution_forward_algorithm_v7, cudnnGetConvolutionForwardAlgorithm_v7);
CU_DNN_SAME(find_convolution_forward_algorithm_ex, cudnnFindConvolutionForwardAlgorithmEx);
CU_DNN_SAME(get_convolution_forward_workspace_size, cudnnGetConvolutionForwardWorkspaceSize);
CU_DNN_SAME(convolution_forward, cudnnConvolutionForward);
CU_DNN_SAME(get_convolution_backward_data_algorithm_v7, cudnnGetConvolutionBackwardDataAlgorithm_v7);
CU_DNN_SAME(get_convolution_backward_data_workspace_size, cudnnGetConvolutionBackwardDataWorkspaceSize);
CU_DNN_SAME(convolution_backward_data, cudnnConvolutionBackwardData);

struct cu_dnn_api cu_dnn;

int cu_dnn_load(char *why, size_t n)
{
	static int state; // 0: not tried, 1: loaded, -1: failed (the reason in failed)
	static char failed[512];

	if (state == 0) {
		static const struct cu_dl_sym fns[] = {
			{"cudnnGetVersion", (void **)&cu_dnn.get_version},
			{"cudnnGetErrorString", (void **)&cu_dnn.get_error_string},
			{"cudnnCreate", (void **)&cu_dnn.create},
			{"cudnnDestroy", (void **)&cu_dnn.destroy},
			{"cudnnSetStream", (void **)&cu_dnn.set_stream},
			{"cudnnCreateTensorDescriptor", (void **)&cu_dnn.create_tensor_descriptor},
			{"cudnnDestroyTensorDescriptor", (void **)&cu_dnn.destroy_tensor_descriptor},
			{"cudnnSetTensorNdDescriptor", (void **)&cu_dnn.set_tensor_nd_descriptor},
			{"cudnnCreateFilterDescriptor", (void **)&cu_dnn.create_filter_descriptor},
			{"cudnnDestroyFilterDescriptor", (void **)&cu_dnn.destroy_filter_descriptor},
			{"cudnnSetFilterNdDescriptor", (void **)&cu_dnn.set_filter_nd_descriptor},
			{"cudnnCreateConvolutionDescriptor", (void **)&cu_dnn.create_convolution_descriptor},
			{"cudnnDestroyConvolutionDescriptor", (void **)&cu_dnn.destroy_convolution_descriptor},
			{"cudnnSetConvolutionNdDescriptor", (void **)&cu_dnn.set_convolution_nd_descriptor},
			{"cudnnSetConvolutionGroupCount", (void **)&cu_dnn.set_convolution_group_count},
			{"cudnnSetConvolutionMathType", (void **)&cu_dnn.set_convolution_math_type},
			{"cudnnGetConvolutionNdForwardOutputDim",
			 (void **)&cu_dnn.get_convolution_nd_forward_output_dim},
			{"cudnnGetConvolutionForwardAlgorithm_v7",
			 (void **)&cu_dnn.get_convolution_forward_algorithm_v7},
			{"cudnnFindConvolutionForwardAlgorithmEx",
			 (void **)&cu_dnn.find_convolution_forward_algorithm_ex},
			{"cudnnGetConvolutionForwardWorkspaceSize",
			 (void **)&cu_dnn.get_convolution_forward_workspace_size},
			{"cudnnConvolutionForward", (void **)&cu_dnn.convolution_forward},
			{"cudnnGetConvolutionBackwardDataAlgorithm_v7",
			 (void **)&cu_dnn.get_convolution_backward_data_algorithm_v7},
			{"cudnnGetConvolutionBackwardDataWorkspaceSize",
			 (void **)&cu_dnn.get_convolution_backward_data_workspace_size},
			{"cudnnConvolutionBackwardData", (void **)&cu_dnn.convolution_backward_data},
		};
		int r = cu_dl_load(CUDNN_SONAME, fns, sizeof fns / sizeof fns[0], &cu_dnn, sizeof cu_dnn, failed,
				   sizeof failed);
		state = r ? -1 : 1;
	}
	if (state < 0) {
		snprintf(why, n, "%s", failed);
		return -1;
	}
	return 0;
}
