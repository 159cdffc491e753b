/* The table from default-domain op names to their shape rules. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/graph/shape-rules.h"

static const struct {
	const char *op;
	shape_rule_fn fn;
} rules[] = {
	/* same shape and dtype as the first input */
	{.op = "Abs", .fn = rule_same}, {.op = "Acos", .fn = rule_same}, {.op = "Acosh", .fn = rule_same},
	{.op = "Asin", .fn = rule_same}, {.op = "Asinh", .fn = rule_same}, {.op = "Atan", .fn = rule_same},
	{.op = "Atanh", .fn = rule_same}, {.op = "BatchNormalization", .fn = rule_batchnorm},
	{.op = "Ceil", .fn = rule_same}, {.op = "Celu", .fn = rule_same}, {.op = "Clip", .fn = rule_same},
	{.op = "Cos", .fn = rule_same}, {.op = "Cosh", .fn = rule_same}, {.op = "CumSum", .fn = rule_same},
	{.op = "Elu", .fn = rule_same}, {.op = "Erf", .fn = rule_same}, {.op = "Exp", .fn = rule_same},
	{.op = "Floor", .fn = rule_same}, {.op = "Gelu", .fn = rule_same},
	{.op = "GroupNormalization", .fn = rule_same}, {.op = "HardSigmoid", .fn = rule_same},
	{.op = "HardSwish", .fn = rule_same}, {.op = "Hardmax", .fn = rule_same}, {.op = "Identity", .fn = rule_same},
	{.op = "InstanceNormalization", .fn = rule_same}, {.op = "LRN", .fn = rule_same},
	{.op = "LeakyRelu", .fn = rule_same}, {.op = "Log", .fn = rule_same}, {.op = "LogSoftmax", .fn = rule_same},
	{.op = "LpNormalization", .fn = rule_same}, {.op = "MeanVarianceNormalization", .fn = rule_same},
	{.op = "Mish", .fn = rule_same}, {.op = "Neg", .fn = rule_same}, {.op = "Reciprocal", .fn = rule_same},
	{.op = "Relu", .fn = rule_same}, {.op = "Round", .fn = rule_same}, {.op = "ScatterElements", .fn = rule_same},
	{.op = "ScatterND", .fn = rule_same}, {.op = "Scatter", .fn = rule_same}, {.op = "Selu", .fn = rule_same},
	{.op = "Shrink", .fn = rule_same}, {.op = "Sigmoid", .fn = rule_same}, {.op = "Sign", .fn = rule_same},
	{.op = "Sin", .fn = rule_same}, {.op = "Sinh", .fn = rule_same}, {.op = "Softmax", .fn = rule_same},
	{.op = "Softplus", .fn = rule_same}, {.op = "Softsign", .fn = rule_same}, {.op = "Sqrt", .fn = rule_same},
	{.op = "Tan", .fn = rule_same}, {.op = "Tanh", .fn = rule_same}, {.op = "ThresholdedRelu", .fn = rule_same},
	{.op = "Trilu", .fn = rule_same}, {.op = "BitwiseNot", .fn = rule_same},
	{.op = "ReverseSequence", .fn = rule_same}, {.op = "RMSNormalization", .fn = rule_same},
	{.op = "LayerNormalization", .fn = rule_layernorm}, {.op = "Dropout", .fn = rule_dropout},
	/* transformer-era ops */
	{.op = "RotaryEmbedding", .fn = rule_same}, {.op = "SwiGLU", .fn = rule_same}, {.op = "Swish", .fn = rule_same},
	{.op = "TensorScatter", .fn = rule_same}, {.op = "Attention", .fn = rule_attention},
	{.op = "CausalConvWithState", .fn = rule_causal_conv_state}, {.op = "LinearAttention", .fn = rule_linear_attention},
	/* broadcasting */
	{.op = "Add", .fn = rule_broadcast}, {.op = "Sub", .fn = rule_broadcast}, {.op = "Mul", .fn = rule_broadcast},
	{.op = "Div", .fn = rule_broadcast}, {.op = "Pow", .fn = rule_broadcast}, {.op = "Mod", .fn = rule_broadcast},
	{.op = "PRelu", .fn = rule_broadcast}, {.op = "Max", .fn = rule_broadcast}, {.op = "Min", .fn = rule_broadcast},
	{.op = "Sum", .fn = rule_broadcast}, {.op = "Mean", .fn = rule_broadcast}, {.op = "And", .fn = rule_broadcast},
	{.op = "Or", .fn = rule_broadcast}, {.op = "Xor", .fn = rule_broadcast}, {.op = "Equal", .fn = rule_broadcast},
	{.op = "Less", .fn = rule_broadcast}, {.op = "Greater", .fn = rule_broadcast},
	{.op = "LessOrEqual", .fn = rule_broadcast}, {.op = "GreaterOrEqual", .fn = rule_broadcast},
	{.op = "BitShift", .fn = rule_broadcast}, {.op = "BitwiseAnd", .fn = rule_broadcast},
	{.op = "BitwiseOr", .fn = rule_broadcast}, {.op = "BitwiseXor", .fn = rule_broadcast},
	{.op = "Where", .fn = rule_where}, {.op = "Not", .fn = rule_bool_unary}, {.op = "IsNaN", .fn = rule_bool_unary},
	{.op = "IsInf", .fn = rule_bool_unary}, {.op = "Cast", .fn = rule_cast},
	{.op = "CastLike", .fn = rule_castlike}, {.op = "BitCast", .fn = rule_bitcast},
	{.op = "StringConcat", .fn = rule_broadcast}, {.op = "RegexFullMatch", .fn = rule_bool_unary},
	{.op = "StringSplit", .fn = rule_string_split}, {.op = "QuantizeLinear", .fn = rule_quantize},
	{.op = "DequantizeLinear", .fn = rule_dequantize},
	/* neural-network core */
	{.op = "Conv", .fn = rule_conv}, {.op = "ConvInteger", .fn = rule_conv}, {.op = "QLinearConv", .fn = rule_conv},
	{.op = "ConvTranspose", .fn = rule_conv_transpose}, {.op = "MaxPool", .fn = rule_pool},
	{.op = "AveragePool", .fn = rule_pool}, {.op = "LpPool", .fn = rule_pool},
	{.op = "GlobalAveragePool", .fn = rule_global_pool}, {.op = "GlobalMaxPool", .fn = rule_global_pool},
	{.op = "GlobalLpPool", .fn = rule_global_pool}, {.op = "Gemm", .fn = rule_gemm},
	{.op = "MatMul", .fn = rule_matmul}, {.op = "MatMulInteger", .fn = rule_matmul},
	{.op = "QLinearMatMul", .fn = rule_matmul}, {.op = "Einsum", .fn = rule_einsum},
	{.op = "Resize", .fn = rule_resize}, {.op = "Upsample", .fn = rule_resize},
	{.op = "DepthToSpace", .fn = rule_depth_to_space}, {.op = "SpaceToDepth", .fn = rule_space_to_depth},
	{.op = "GridSample", .fn = rule_grid_sample}, {.op = "RoiAlign", .fn = rule_roi_align},
	{.op = "NonMaxSuppression", .fn = rule_nms}, {.op = "Col2Im", .fn = rule_col2im},
	{.op = "AffineGrid", .fn = rule_affine_grid}, {.op = "DeformConv", .fn = rule_conv},
	{.op = "ImageDecoder", .fn = rule_image_decoder},
	/* plumbing */
	{.op = "Shape", .fn = rule_shape}, {.op = "Size", .fn = rule_size}, {.op = "Reshape", .fn = rule_reshape},
	{.op = "Flatten", .fn = rule_flatten}, {.op = "Transpose", .fn = rule_transpose},
	{.op = "Squeeze", .fn = rule_squeeze}, {.op = "Unsqueeze", .fn = rule_unsqueeze},
	{.op = "Concat", .fn = rule_concat}, {.op = "Split", .fn = rule_split}, {.op = "Slice", .fn = rule_slice},
	{.op = "Gather", .fn = rule_gather}, {.op = "GatherElements", .fn = rule_gather_elements},
	{.op = "GatherND", .fn = rule_gather_nd}, {.op = "Expand", .fn = rule_expand}, {.op = "Tile", .fn = rule_tile},
	{.op = "Pad", .fn = rule_pad}, {.op = "ConstantOfShape", .fn = rule_constant_of_shape},
	{.op = "Range", .fn = rule_range}, {.op = "NonZero", .fn = rule_nonzero}, {.op = "OneHot", .fn = rule_onehot},
	/* reductions */
	{.op = "ReduceSum", .fn = rule_reduce}, {.op = "ReduceMean", .fn = rule_reduce},
	{.op = "ReduceMax", .fn = rule_reduce}, {.op = "ReduceMin", .fn = rule_reduce},
	{.op = "ReduceProd", .fn = rule_reduce}, {.op = "ReduceL1", .fn = rule_reduce},
	{.op = "ReduceL2", .fn = rule_reduce}, {.op = "ReduceLogSum", .fn = rule_reduce},
	{.op = "ReduceLogSumExp", .fn = rule_reduce}, {.op = "ReduceSumSquare", .fn = rule_reduce},
	{.op = "ArgMax", .fn = rule_argminmax}, {.op = "ArgMin", .fn = rule_argminmax}, {.op = "TopK", .fn = rule_topk},
	/* less common */
	{.op = "LSTM", .fn = rule_recurrent}, {.op = "GRU", .fn = rule_recurrent}, {.op = "RNN", .fn = rule_recurrent},
	{.op = "NegativeLogLikelihoodLoss", .fn = rule_loss}, {.op = "SoftmaxCrossEntropyLoss", .fn = rule_loss},
	{.op = "RandomUniformLike", .fn = rule_like}, {.op = "RandomNormalLike", .fn = rule_like},
	{.op = "Bernoulli", .fn = rule_like}, {.op = "EyeLike", .fn = rule_like},
	{.op = "RandomUniform", .fn = rule_random}, {.op = "RandomNormal", .fn = rule_random},
	{.op = "DynamicQuantizeLinear", .fn = rule_dynamic_quantize}, {.op = "Det", .fn = rule_det},
	{.op = "Unique", .fn = rule_unique}, {.op = "Compress", .fn = rule_compress},
	{.op = "MaxUnpool", .fn = rule_max_unpool},
};

#define N_RULES (sizeof rules / sizeof rules[0])

static int cmp_rule(const void *x, const void *y)
{
	return strcmp(rules[*(const uint16_t *)x].op, rules[*(const uint16_t *)y].op);
}

static int cmp_key(const void *key, const void *y)
{
	return strcmp(key, rules[*(const uint16_t *)y].op);
}

/* Binary search in the rules sorted by name (a linear scan cost 65 strcmp a node: a fifth of shape inference). */
shape_rule_fn shape_rule_find(const char *op)
{
	static uint16_t by_name[N_RULES];
	static int sorted;

	if (!sorted) {
		for (size_t i = 0; i < N_RULES; i++)
			by_name[i] = (uint16_t)i;
		qsort(by_name, N_RULES, sizeof by_name[0], cmp_rule);
		sorted = 1;
	}
	const uint16_t *hit = bsearch(op, by_name, N_RULES, sizeof by_name[0], cmp_key);
	return hit ? rules[*hit].fn : NULL;
}
