/* What the host simulator's files share (src/exec/cuda-sim*.cc; tests only, see cuda/sim/sim.h). */
#ifndef OV_EXEC_CUDA_SIMLIB_H
#define OV_EXEC_CUDA_SIMLIB_H

#include <cuda_runtime.h>
#include <stddef.h>

#include <functional>

/* A line on stderr, "cudasim: ...": what the simulator refused, and why. */
void cusim_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 1 when [p, p + n) lies inside one live device allocation. */
int cusim_is_device(const void *p, size_t n);
/* Stream capture (cudaStreamBeginCapture .. cudaStreamEndCapture, sim.cc): while the stream is captured, work is
 * recorded for the graph instead of run.  cusim_capturing(): 1 then (and the capture still valid);
 * cusim_capture_broken(): 1 while a capture goes on that a call already invalidated (every later call fails: the
 * launch error is set to cudaErrorStreamCaptureInvalidated);
 * cusim_record(work): the work runs at each launch of the graph, in order; cusim_capture_break(e, why): a call the
 * capture cannot take (a wait for the stream, pageable memory, a synchronous allocation...): said on stderr, the
 * capture is invalidated (cudaStreamEndCapture then gives no graph), and e is what the call returns. */
int cusim_capturing(void);
int cusim_capture_broken(void);
void cusim_record(std::function<void()> work);
cudaError_t cusim_capture_break(cudaError_t e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Round a float32 to TF32 (10 mantissa bits, to nearest even), as tensor cores read their inputs. */
float cusim_tf32(float v);

#endif
