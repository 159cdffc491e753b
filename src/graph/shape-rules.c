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
	{"Abs", rule_same}, {"Acos", rule_same}, {"Acosh", rule_same}, {"Asin", rule_same}, {"Asinh", rule_same},
	{"Atan", rule_same}, {"Atanh", rule_same}, {"BatchNormalization", rule_batchnorm}, {"Ceil", rule_same},
	{"Celu", rule_same}, {"Clip", rule_same}, {"Cos", rule_same}, {"Cosh", rule_same}, {"CumSum", rule_same},
	{"Elu", rule_same}, {"Erf", rule_same}, {"Exp", rule_same}, {"Floor", rule_same}, {"Gelu", rule_same},
	{"GroupNormalization", rule_same}, {"HardSigmoid", rule_same}, {"HardSwish", rule_same},
	{"Hardmax", rule_same}, {"Identity", rule_same}, {"InstanceNormalization", rule_same},
	{"LRN", rule_same}, {"LeakyRelu", rule_same}, {"Log", rule_same}, {"LogSoftmax", rule_same},
	{"LpNormalization", rule_same}, {"MeanVarianceNormalization", rule_same}, {"Mish", rule_same},
	{"Neg", rule_same}, {"Reciprocal", rule_same}, {"Relu", rule_same}, {"Round", rule_same},
	{"ScatterElements", rule_same}, {"ScatterND", rule_same}, {"Scatter", rule_same}, {"Selu", rule_same},
	{"Shrink", rule_same}, {"Sigmoid", rule_same}, {"Sign", rule_same}, {"Sin", rule_same}, {"Sinh", rule_same},
	{"Softmax", rule_same}, {"Softplus", rule_same}, {"Softsign", rule_same}, {"Sqrt", rule_same},
	{"Tan", rule_same}, {"Tanh", rule_same}, {"ThresholdedRelu", rule_same}, {"Trilu", rule_same},
	{"BitwiseNot", rule_same}, {"Swish", rule_same}, {"ReverseSequence", rule_same}, {"RMSNormalization", rule_same},
	{"LayerNormalization", rule_layernorm}, {"Dropout", rule_dropout},
	/* broadcasting */
	{"Add", rule_broadcast}, {"Sub", rule_broadcast}, {"Mul", rule_broadcast}, {"Div", rule_broadcast},
	{"Pow", rule_broadcast}, {"Mod", rule_broadcast}, {"PRelu", rule_broadcast}, {"Max", rule_broadcast},
	{"Min", rule_broadcast}, {"Sum", rule_broadcast}, {"Mean", rule_broadcast}, {"And", rule_broadcast},
	{"Or", rule_broadcast}, {"Xor", rule_broadcast}, {"Equal", rule_broadcast}, {"Less", rule_broadcast},
	{"Greater", rule_broadcast}, {"LessOrEqual", rule_broadcast}, {"GreaterOrEqual", rule_broadcast},
	{"BitShift", rule_broadcast}, {"BitwiseAnd", rule_broadcast}, {"BitwiseOr", rule_broadcast},
	{"BitwiseXor", rule_broadcast}, {"Where", rule_where},
	{"Not", rule_bool_unary}, {"IsNaN", rule_bool_unary}, {"IsInf", rule_bool_unary},
	{"Cast", rule_cast}, {"CastLike", rule_castlike}, {"BitCast", rule_bitcast},
	{"StringConcat", rule_broadcast}, {"RegexFullMatch", rule_bool_unary}, {"StringSplit", rule_string_split},
	{"QuantizeLinear", rule_quantize}, {"DequantizeLinear", rule_dequantize},
	/* neural-network core */
	{"Conv", rule_conv}, {"ConvInteger", rule_conv}, {"QLinearConv", rule_conv},
	{"ConvTranspose", rule_conv_transpose}, {"MaxPool", rule_pool}, {"AveragePool", rule_pool},
	{"LpPool", rule_pool}, {"GlobalAveragePool", rule_global_pool}, {"GlobalMaxPool", rule_global_pool},
	{"GlobalLpPool", rule_global_pool}, {"Gemm", rule_gemm}, {"MatMul", rule_matmul},
	{"MatMulInteger", rule_matmul}, {"QLinearMatMul", rule_matmul}, {"Einsum", rule_einsum},
	{"Resize", rule_resize}, {"Upsample", rule_resize}, {"DepthToSpace", rule_depth_to_space},
	{"SpaceToDepth", rule_space_to_depth}, {"GridSample", rule_grid_sample}, {"RoiAlign", rule_roi_align},
	{"NonMaxSuppression", rule_nms}, {"Col2Im", rule_col2im}, {"AffineGrid", rule_affine_grid},
	{"DeformConv", rule_conv}, {"ImageDecoder", rule_image_decoder},
	/* plumbing */
	{"Shape", rule_shape}, {"Size", rule_size}, {"Reshape", rule_reshape}, {"Flatten", rule_flatten},
	{"Transpose", rule_transpose}, {"Squeeze", rule_squeeze}, {"Unsqueeze", rule_unsqueeze},
	{"Concat", rule_concat}, {"Split", rule_split}, {"Slice", rule_slice}, {"Gather", rule_gather},
	{"GatherElements", rule_gather_elements}, {"GatherND", rule_gather_nd}, {"Expand", rule_expand},
	{"Tile", rule_tile}, {"Pad", rule_pad}, {"ConstantOfShape", rule_constant_of_shape}, {"Range", rule_range},
	{"NonZero", rule_nonzero}, {"OneHot", rule_onehot},
	/* reductions */
	{"ReduceSum", rule_reduce}, {"ReduceMean", rule_reduce}, {"ReduceMax", rule_reduce},
	{"ReduceMin", rule_reduce}, {"ReduceProd", rule_reduce}, {"ReduceL1", rule_reduce},
	{"ReduceL2", rule_reduce}, {"ReduceLogSum", rule_reduce}, {"ReduceLogSumExp", rule_reduce},
	{"ReduceSumSquare", rule_reduce}, {"ArgMax", rule_argminmax}, {"ArgMin", rule_argminmax},
	{"TopK", rule_topk},
	/* less common */
	{"LSTM", rule_recurrent}, {"GRU", rule_recurrent}, {"RNN", rule_recurrent},
	{"NegativeLogLikelihoodLoss", rule_loss}, {"SoftmaxCrossEntropyLoss", rule_loss},
	{"RandomUniformLike", rule_like}, {"RandomNormalLike", rule_like}, {"Bernoulli", rule_like},
	{"EyeLike", rule_like}, {"RandomUniform", rule_random}, {"RandomNormal", rule_random},
	{"DynamicQuantizeLinear", rule_dynamic_quantize}, {"Det", rule_det}, {"Unique", rule_unique},
	{"Compress", rule_compress}, {"MaxUnpool", rule_max_unpool},
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
