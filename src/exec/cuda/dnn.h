/* cuDNN, loaded with dlopen on first use instead of linked (C++, for the CUDA backend's files).
 *
 * Why: the same as for cuBLAS (cuda/blas.h).  Linked, libcudnn and the libraries it needs would be loaded by every
 * command (info, the TUI...) at startup, with or without a GPU; loaded here, only a run on the CUDA backend and
 * --version pay for it.
 *
 * The members are spelled out rather than taken with decltype: the host simulator (tests) fills this same table
 * with its own functions, so the names and types are a contract.  cuda/dnn.cu checks them against cudnn.h. */
#ifndef OV_EXEC_CUDA_DNN_H
#define OV_EXEC_CUDA_DNN_H

#include <cudnn.h>
#include <stddef.h>

/* The functions the backend uses, filled by cu_dnn_load(). */
struct cu_dnn_api {
	size_t (*get_version)(void);
	const char *(*get_error_string)(cudnnStatus_t);
	cudnnStatus_t (*create)(cudnnHandle_t *);
	cudnnStatus_t (*destroy)(cudnnHandle_t);
	cudnnStatus_t (*set_stream)(cudnnHandle_t, cudaStream_t);
	cudnnStatus_t (*create_tensor_descriptor)(cudnnTensorDescriptor_t *);
	cudnnStatus_t (*destroy_tensor_descriptor)(cudnnTensorDescriptor_t);
	cudnnStatus_t (*set_tensor_nd_descriptor)(cudnnTensorDescriptor_t, cudnnDataType_t, int, const int[],
			const int[]);
	cudnnStatus_t (*create_filter_descriptor)(cudnnFilterDescriptor_t *);
	cudnnStatus_t (*destroy_filter_descriptor)(cudnnFilterDescriptor_t);
	cudnnStatus_t (*set_filter_nd_descriptor)(cudnnFilterDescriptor_t, cudnnDataType_t, cudnnTensorFormat_t, int,
			const int[]);
	cudnnStatus_t (*create_convolution_descriptor)(cudnnConvolutionDescriptor_t *);
	cudnnStatus_t (*destroy_convolution_descriptor)(cudnnConvolutionDescriptor_t);
	cudnnStatus_t (*set_convolution_nd_descriptor)(cudnnConvolutionDescriptor_t, int, const int[], const int[],
			const int[], cudnnConvolutionMode_t, cudnnDataType_t);
	cudnnStatus_t (*set_convolution_group_count)(cudnnConvolutionDescriptor_t, int);
	cudnnStatus_t (*set_convolution_math_type)(cudnnConvolutionDescriptor_t, cudnnMathType_t);
	cudnnStatus_t (*get_convolution_nd_forward_output_dim)(const cudnnConvolutionDescriptor_t,
			const cudnnTensorDescriptor_t, const cudnnFilterDescriptor_t, int, int[]);
	cudnnStatus_t (*get_convolution_forward_algorithm_v7)(cudnnHandle_t, const cudnnTensorDescriptor_t,
			const cudnnFilterDescriptor_t, const cudnnConvolutionDescriptor_t,
			const cudnnTensorDescriptor_t, const int, int *, cudnnConvolutionFwdAlgoPerf_t *);
	cudnnStatus_t (*find_convolution_forward_algorithm_ex)(cudnnHandle_t, const cudnnTensorDescriptor_t,
			const void *, const cudnnFilterDescriptor_t, const void *, const cudnnConvolutionDescriptor_t,
			const cudnnTensorDescriptor_t, void *, const int, int *, cudnnConvolutionFwdAlgoPerf_t *, void *,
			size_t);
	cudnnStatus_t (*get_convolution_forward_workspace_size)(cudnnHandle_t, const cudnnTensorDescriptor_t,
			const cudnnFilterDescriptor_t, const cudnnConvolutionDescriptor_t,
			const cudnnTensorDescriptor_t, cudnnConvolutionFwdAlgo_t, size_t *);
	cudnnStatus_t (*convolution_forward)(cudnnHandle_t, const void *, const cudnnTensorDescriptor_t, const void *,
			const cudnnFilterDescriptor_t, const void *, const cudnnConvolutionDescriptor_t,
			cudnnConvolutionFwdAlgo_t, void *, size_t, const void *, const cudnnTensorDescriptor_t, void *);
	cudnnStatus_t (*get_convolution_backward_data_algorithm_v7)(cudnnHandle_t, const cudnnFilterDescriptor_t,
			const cudnnTensorDescriptor_t, const cudnnConvolutionDescriptor_t,
			const cudnnTensorDescriptor_t, const int, int *, cudnnConvolutionBwdDataAlgoPerf_t *);
	cudnnStatus_t (*get_convolution_backward_data_workspace_size)(cudnnHandle_t, const cudnnFilterDescriptor_t,
			const cudnnTensorDescriptor_t, const cudnnConvolutionDescriptor_t,
			const cudnnTensorDescriptor_t, cudnnConvolutionBwdDataAlgo_t, size_t *);
	cudnnStatus_t (*convolution_backward_data)(cudnnHandle_t, const void *, const cudnnFilterDescriptor_t,
			const void *, const cudnnTensorDescriptor_t, const void *, const cudnnConvolutionDescriptor_t,
			cudnnConvolutionBwdDataAlgo_t, void *, size_t, const void *, const cudnnTensorDescriptor_t, void *);
};
extern struct cu_dnn_api cu_dnn;

/* Load cuDNN once (later calls give the first answer): 0, or -1 with why (the loader's message) in why. */
int cu_dnn_load(char *why, size_t n);

#endif
