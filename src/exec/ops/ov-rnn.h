/* The arithmetic of one step of RNN, GRU and LSTM, shared by the CPU kernel (src/exec/cpu/misc.c, in double) and
 * the CUDA kernels (src/exec/cuda/rnn.cu, in float32): the activation functions the ops name, and each cell's
 * gate arithmetic from its pre-activations (W x + R h + biases, computed by the caller) on.  Both sides call these
 * functions, so the clip order, the peepholes and the activations cannot drift apart.
 *
 * C11 and C++ at once (see ops/ov-math.h); functions come in pairs, _d (double) and _f (float32). */
#ifndef OV_EXEC_OV_RNN_H
#define OV_EXEC_OV_RNN_H

#include <math.h>

#ifndef OV_HD
#ifdef __CUDACC__
#define OV_HD __host__ __device__
#else
#define OV_HD
#endif
#endif

enum ov_rnn_act_kind {
	OV_RNN_SIGMOID,
	OV_RNN_TANH,
	OV_RNN_RELU,
	OV_RNN_AFFINE,
	OV_RNN_LEAKY_RELU,
	OV_RNN_THRESHOLDED_RELU,
	OV_RNN_SCALED_TANH,
	OV_RNN_HARD_SIGMOID,
	OV_RNN_ELU,
	OV_RNN_SOFTSIGN,
	OV_RNN_SOFTPLUS
};

/* One activation with its alpha and beta (the defaults, or activation_alpha/beta). */
struct ov_rnn_act {
	int kind; /* enum ov_rnn_act_kind */
	double alpha, beta;
};

/* C's fmax and fmin (a NaN operand gives the other one), written out so that the device compiles the same */
static inline OV_HD double ov_rnn_fmax_d(double a, double b) { return a != a ? b : b != b ? a : a > b ? a : b; }
static inline OV_HD double ov_rnn_fmin_d(double a, double b) { return a != a ? b : b != b ? a : a < b ? a : b; }
static inline OV_HD float ov_rnn_fmax_f(float a, float b) { return a != a ? b : b != b ? a : a > b ? a : b; }
static inline OV_HD float ov_rnn_fmin_f(float a, float b) { return a != a ? b : b != b ? a : a < b ? a : b; }

static inline OV_HD double ov_rnn_act_d(struct ov_rnn_act f, double x)
{
	switch (f.kind) {
	case OV_RNN_SIGMOID: return x >= 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x));
	case OV_RNN_TANH: return tanh(x);
	case OV_RNN_RELU: return x > 0 ? x : 0;
	case OV_RNN_AFFINE: return f.alpha * x + f.beta;
	case OV_RNN_LEAKY_RELU: return x >= 0 ? x : f.alpha * x;
	case OV_RNN_THRESHOLDED_RELU: return x > f.alpha ? x : 0;
	case OV_RNN_SCALED_TANH: return f.alpha * tanh(f.beta * x);
	case OV_RNN_HARD_SIGMOID: return ov_rnn_fmax_d(0, ov_rnn_fmin_d(1, f.alpha * x + f.beta));
	case OV_RNN_ELU: return x >= 0 ? x : f.alpha * (exp(x) - 1);
	case OV_RNN_SOFTSIGN: return x / (1 + fabs(x));
	case OV_RNN_SOFTPLUS: return log1p(exp(-fabs(x))) + ov_rnn_fmax_d(x, 0);
	}
	return x;
}

static inline OV_HD float ov_rnn_act_f(struct ov_rnn_act f, float x)
{
	float a = (float)f.alpha, b = (float)f.beta;

	switch (f.kind) {
	case OV_RNN_SIGMOID: return x >= 0 ? 1 / (1 + expf(-x)) : expf(x) / (1 + expf(x));
	case OV_RNN_TANH: return tanhf(x);
	case OV_RNN_RELU: return x > 0 ? x : 0;
	case OV_RNN_AFFINE: return a * x + b;
	case OV_RNN_LEAKY_RELU: return x >= 0 ? x : a * x;
	case OV_RNN_THRESHOLDED_RELU: return x > a ? x : 0;
	case OV_RNN_SCALED_TANH: return a * tanhf(b * x);
	case OV_RNN_HARD_SIGMOID: return ov_rnn_fmax_f(0, ov_rnn_fmin_f(1, a * x + b));
	case OV_RNN_ELU: return x >= 0 ? x : a * (expf(x) - 1);
	case OV_RNN_SOFTSIGN: return x / (1 + fabsf(x));
	case OV_RNN_SOFTPLUS: return log1pf(expf(-fabsf(x))) + ov_rnn_fmax_f(x, 0);
	}
	return x;
}

/* clip > 0: x limited to [-clip, clip]; otherwise x */
static inline OV_HD double ov_rnn_clip_d(double x, double clip)
{
	return clip > 0 ? ov_rnn_fmax_d(-clip, ov_rnn_fmin_d(clip, x)) : x;
}

static inline OV_HD float ov_rnn_clip_f(float x, float clip)
{
	return clip > 0 ? ov_rnn_fmax_f(-clip, ov_rnn_fmin_f(clip, x)) : x;
}

/* RNN: H = f(clip(W x + R h + Wb + Rb)). */
static inline OV_HD double ov_rnn_cell_d(struct ov_rnn_act f, double pre, double clip)
{
	return ov_rnn_act_d(f, ov_rnn_clip_d(pre, clip));
}

static inline OV_HD float ov_rnn_cell_f(struct ov_rnn_act f, float pre, float clip)
{
	return ov_rnn_act_f(f, ov_rnn_clip_f(pre, clip));
}

/* GRU's update and reset gates: z = f(clip(pre)), r likewise (same function). */
static inline OV_HD double ov_gru_gate_d(struct ov_rnn_act f, double pre, double clip)
{
	return ov_rnn_act_d(f, ov_rnn_clip_d(pre, clip));
}

static inline OV_HD float ov_gru_gate_f(struct ov_rnn_act f, float pre, float clip)
{
	return ov_rnn_act_f(f, ov_rnn_clip_f(pre, clip));
}

/* GRU's new hidden value from the candidate's parts: gx = Wh x + Wbh + Rbh; rh = Rh (r . h) without
 * linear_before_reset, Rh h with it (then the candidate is Wh x + Wbh + r . (Rh h + Rbh), so Rbh is taken back
 * out of gx); z and r the gates, hprev the state: (1 - z) . g(clip(candidate)) + z . hprev. */
static inline OV_HD double ov_gru_cell_d(struct ov_rnn_act g, double gx, double rh, double z, double r, double rbh,
					 int lbr, double hprev, double clip)
{
	double v = rh;
	if (lbr) {
		v = r * (v + rbh);
		v -= rbh;
	}
	double ht = ov_rnn_act_d(g, ov_rnn_clip_d(gx + v, clip));
	return (1 - z) * ht + z * hprev;
}

static inline OV_HD float ov_gru_cell_f(struct ov_rnn_act g, float gx, float rh, float z, float r, float rbh, int lbr,
					float hprev, float clip)
{
	float v = rh;
	if (lbr) {
		v = r * (v + rbh);
		v -= rbh;
	}
	float ht = ov_rnn_act_f(g, ov_rnn_clip_f(gx + v, clip));
	return (1 - z) * ht + z * hprev;
}

/* LSTM: from the pre-activations of the gates i, o, f, c (W x + R h + Wb + Rb) and the cell state *c, the new cell
 * state (in *c) and the new hidden value (returned).  Peepholes (has_p) pi, po, pf act on the old cell state for
 * i and f and on the new one for o; clip applies after them; input_forget couples f = 1 - i.  Activations: f for
 * the gates, g for the cell input, h for the output. */
static inline OV_HD double ov_lstm_cell_d(struct ov_rnn_act f, struct ov_rnn_act g, struct ov_rnn_act h, double gi,
					  double go, double gf, double gc, int has_p, double pi, double po, double pf,
					  int input_forget, double clip, double *c)
{
	double cp = *c;
	if (has_p) {
		gi += pi * cp;
		gf += pf * cp;
	}
	gi = ov_rnn_clip_d(gi, clip);
	gf = ov_rnn_clip_d(gf, clip);
	double it = ov_rnn_act_d(f, gi);
	double ft = input_forget ? 1 - it : ov_rnn_act_d(f, gf);
	double ct = ov_rnn_act_d(g, ov_rnn_clip_d(gc, clip));
	double cn = ft * cp + it * ct;
	*c = cn;
	if (has_p)
		go += po * cn;
	go = ov_rnn_clip_d(go, clip);
	return ov_rnn_act_d(f, go) * ov_rnn_act_d(h, cn);
}

static inline OV_HD float ov_lstm_cell_f(struct ov_rnn_act f, struct ov_rnn_act g, struct ov_rnn_act h, float gi,
					 float go, float gf, float gc, int has_p, float pi, float po, float pf,
					 int input_forget, float clip, float *c)
{
	float cp = *c;
	if (has_p) {
		gi += pi * cp;
		gf += pf * cp;
	}
	gi = ov_rnn_clip_f(gi, clip);
	gf = ov_rnn_clip_f(gf, clip);
	float it = ov_rnn_act_f(f, gi);
	float ft = input_forget ? 1 - it : ov_rnn_act_f(f, gf);
	float ct = ov_rnn_act_f(g, ov_rnn_clip_f(gc, clip));
	float cn = ft * cp + it * ct;
	*c = cn;
	if (has_p)
		go += po * cn;
	go = ov_rnn_clip_f(go, clip);
	return ov_rnn_act_f(f, go) * ov_rnn_act_f(h, cn);
}

#endif
