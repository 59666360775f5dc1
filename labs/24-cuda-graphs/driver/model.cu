/* model.cu — Day 24 driver: the toy decoder whose decode step graph.cu captures. Do not edit.
 *
 * One decode step is a chain of small kernels, each launched on its own, as an engine without
 * fusion launches them (day 23 fuses some):
 *
 *   embed                      x = embedding[tokens[position]]
 *   for each layer:            RMSNorm, Q, K and V projections (three GEMVs), RoPE, append K
 *                              and V to the cache, attention over the cache, output projection,
 *                              residual add, RMSNorm, gate and up projections, SwiGLU, down
 *                              projection, residual add                      (15 kernels)
 *   final RMSNorm, logits (a GEMV), greedy argmax into tokens[position + 1], position += 1
 *
 * Every kernel reads the position from device memory and the last one advances it, so the
 * step needs nothing from the host: the same launches, with the same arguments, decode every
 * token, and that is what lets one captured graph replay every step (a graph keeps each
 * kernel's arguments as they were at capture). The kernels are deliberately simple — one
 * thread per output row, serial sums in a fixed order — so that they compute exactly what
 * reference.c computes and every run gives the same bits. */
#include "lab.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

enum { KERNELS_PER_LAYER = 15, ROW_THREADS = 64, WARP = 32 };
static const float NORM_EPSILON = 1e-5f, ROPE_BASE = 10000.0f;

typedef struct layer_weights {
    const float *attention_norm, *wq, *wk, *wv, *wo, *mlp_norm, *w_gate, *w_up, *w_down;
} layer_weights;

struct decode_model {
    decode_config config;
    float *weights;                      /* one allocation, in decode_fill_weights' order */
    const float *embedding, *final_norm, *logits_weight;
    layer_weights *layers;               /* host array of device pointers */
    float *x, *xb, *xb2, *q, *k, *v, *att, *hb, *hb2, *logits;
    float *key_cache, *value_cache;      /* [layers][max_positions][dim] */
    int *position, *tokens;              /* one int; max_positions + 1 ints */
    int first_token;
};

// ----------------------------------------------------------------------------
// The kernels

__global__ void embed_kernel(const float *embedding, const int *tokens, const int *position, float *x, int dim,
                             int max_positions)
{
    int pos = *position, i = blockIdx.x * blockDim.x + threadIdx.x;
    if (pos >= max_positions || i >= dim) return;
    x[i] = embedding[(size_t)tokens[pos] * dim + i];
}

/* One block of 32: thread 0 sums the squares in order, every thread scales its share. */
__global__ void rmsnorm_kernel(const float *x, const float *weight, float *out, int dim)
{
    __shared__ float inverse_rms;
    if (threadIdx.x == 0) {
        float sum = 0;
        for (int i = 0; i < dim; i++) sum += x[i] * x[i];
        inverse_rms = 1.0f / sqrtf(sum / dim + NORM_EPSILON);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < dim; i += blockDim.x) out[i] = weight[i] * (inverse_rms * x[i]);
}

/* y = W x, W rows x cols row-major: one thread per row. */
__global__ void gemv_kernel(const float *w, const float *x, float *y, int rows, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float sum = 0;
    for (int c = 0; c < cols; c++) sum += w[(size_t)row * cols + c] * x[c];
    y[row] = sum;
}

/* Rotates each pair (2i, 2i + 1) of q and k by position x frequency, llama2.c's way. */
__global__ void rope_kernel(float *q, float *k, const int *position, int dim, int head_dim, int max_positions)
{
    int pos = *position, pair = blockIdx.x * blockDim.x + threadIdx.x;
    if (pos >= max_positions || 2 * pair >= dim) return;
    int i = 2 * pair;
    float frequency = 1.0f / powf(ROPE_BASE, (float)(i % head_dim) / (float)head_dim);
    float angle = pos * frequency, c = cosf(angle), s = sinf(angle);
    float q0 = q[i], q1 = q[i + 1], k0 = k[i], k1 = k[i + 1];
    q[i] = q0 * c - q1 * s, q[i + 1] = q0 * s + q1 * c;
    k[i] = k0 * c - k1 * s, k[i + 1] = k0 * s + k1 * c;
}

__global__ void kv_append_kernel(const float *k, const float *v, float *key_cache, float *value_cache,
                                 const int *position, int dim, int max_positions)
{
    int pos = *position, i = blockIdx.x * blockDim.x + threadIdx.x;
    if (pos >= max_positions || i >= dim) return;
    key_cache[(size_t)pos * dim + i] = k[i];
    value_cache[(size_t)pos * dim + i] = v[i];
}

/* One block of 32 per head: the scores of keys 0 .. position, a softmax by thread 0, then one
 * thread per output element of the head. */
__global__ void attention_kernel(const float *q, const float *key_cache, const float *value_cache, float *out,
                                 const int *position, int dim, int head_dim, int max_positions)
{
    __shared__ float weights[MAX_POSITIONS];
    int pos = *position, head = blockIdx.x, offset = head * head_dim;
    if (pos >= max_positions) return;
    float scale = 1.0f / sqrtf((float)head_dim);
    for (int j = threadIdx.x; j <= pos; j += blockDim.x) {
        float dot = 0;
        for (int c = 0; c < head_dim; c++) dot += q[offset + c] * key_cache[(size_t)j * dim + offset + c];
        weights[j] = dot * scale;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        float max = weights[0], sum = 0;
        for (int j = 1; j <= pos; j++) max = fmaxf(max, weights[j]);
        for (int j = 0; j <= pos; j++) weights[j] = expf(weights[j] - max), sum += weights[j];
        for (int j = 0; j <= pos; j++) weights[j] /= sum;
    }
    __syncthreads();
    for (int c = threadIdx.x; c < head_dim; c += blockDim.x) {
        float sum = 0;
        for (int j = 0; j <= pos; j++) sum += weights[j] * value_cache[(size_t)j * dim + offset + c];
        out[offset + c] = sum;
    }
}

__global__ void residual_add_kernel(float *x, const float *delta, int dim)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < dim) x[i] += delta[i];
}

/* gate = SiLU(gate) x up */
__global__ void swiglu_kernel(float *gate, const float *up, int hidden)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < hidden) gate[i] = gate[i] / (1.0f + expf(-gate[i])) * up[i];
}

/* tokens[position + 1] = the first index of the largest logit. */
__global__ void argmax_kernel(const float *logits, int vocab, int *tokens, const int *position, int max_positions)
{
    int pos = *position;
    if (pos >= max_positions) return;
    int best = 0;
    for (int i = 1; i < vocab; i++)
        if (logits[i] > logits[best]) best = i;
    tokens[pos + 1] = best;
}

__global__ void advance_position_kernel(int *position, int max_positions)
{
    if (*position < max_positions) *position += 1;
}

// ----------------------------------------------------------------------------
// The step: kernel k of decode_step_kernels

static unsigned blocks(int count, int threads) { return (unsigned)((count + threads - 1) / threads); }

/* What kernel k is: 0 embed; 1 + 15 l + op the op-th of layer l; then the four last. */
enum { OP_ATTENTION_NORM, OP_Q, OP_K, OP_V, OP_ROPE, OP_KV_APPEND, OP_ATTENTION, OP_O, OP_ATTENTION_RESIDUAL,
       OP_MLP_NORM, OP_GATE, OP_UP, OP_SWIGLU, OP_DOWN, OP_MLP_RESIDUAL };
static const char *const op_names[KERNELS_PER_LAYER] = {
    "RMSNorm", "Q projection", "K projection", "V projection", "RoPE", "KV append", "attention",
    "O projection", "residual add", "RMSNorm (MLP)", "gate projection", "up projection", "SwiGLU",
    "down projection", "residual add (MLP)"};

static cudaError_t launch_layer_op(const decode_model *m, int layer, int op, cudaStream_t stream)
{
    const decode_config *c = &m->config;
    const layer_weights *w = &m->layers[layer];
    int dim = c->dim, hidden = c->hidden, max = c->max_positions;
    float *key_cache = m->key_cache + (size_t)layer * max * dim, *value_cache = m->value_cache + (size_t)layer * max * dim;
    switch (op) {
    case OP_ATTENTION_NORM: rmsnorm_kernel<<<1, WARP, 0, stream>>>(m->x, w->attention_norm, m->xb, dim); break;
    case OP_Q: gemv_kernel<<<blocks(dim, ROW_THREADS), ROW_THREADS, 0, stream>>>(w->wq, m->xb, m->q, dim, dim); break;
    case OP_K: gemv_kernel<<<blocks(dim, ROW_THREADS), ROW_THREADS, 0, stream>>>(w->wk, m->xb, m->k, dim, dim); break;
    case OP_V: gemv_kernel<<<blocks(dim, ROW_THREADS), ROW_THREADS, 0, stream>>>(w->wv, m->xb, m->v, dim, dim); break;
    case OP_ROPE:
        rope_kernel<<<blocks(dim / 2, ROW_THREADS), ROW_THREADS, 0, stream>>>(m->q, m->k, m->position, dim, c->head_dim, max);
        break;
    case OP_KV_APPEND:
        kv_append_kernel<<<blocks(dim, ROW_THREADS), ROW_THREADS, 0, stream>>>(m->k, m->v, key_cache, value_cache,
                                                                             m->position, dim, max);
        break;
    case OP_ATTENTION:
        attention_kernel<<<c->heads, WARP, 0, stream>>>(m->q, key_cache, value_cache, m->att, m->position, dim,
                                                        c->head_dim, max);
        break;
    case OP_O: gemv_kernel<<<blocks(dim, ROW_THREADS), ROW_THREADS, 0, stream>>>(w->wo, m->att, m->xb2, dim, dim); break;
    case OP_ATTENTION_RESIDUAL:
    case OP_MLP_RESIDUAL: residual_add_kernel<<<blocks(dim, ROW_THREADS), ROW_THREADS, 0, stream>>>(m->x, m->xb2, dim); break;
    case OP_MLP_NORM: rmsnorm_kernel<<<1, WARP, 0, stream>>>(m->x, w->mlp_norm, m->xb, dim); break;
    case OP_GATE:
        gemv_kernel<<<blocks(hidden, ROW_THREADS), ROW_THREADS, 0, stream>>>(w->w_gate, m->xb, m->hb, hidden, dim);
        break;
    case OP_UP:
        gemv_kernel<<<blocks(hidden, ROW_THREADS), ROW_THREADS, 0, stream>>>(w->w_up, m->xb, m->hb2, hidden, dim);
        break;
    case OP_SWIGLU: swiglu_kernel<<<blocks(hidden, ROW_THREADS), ROW_THREADS, 0, stream>>>(m->hb, m->hb2, hidden); break;
    case OP_DOWN:
        gemv_kernel<<<blocks(dim, ROW_THREADS), ROW_THREADS, 0, stream>>>(w->w_down, m->hb, m->xb2, dim, hidden);
        break;
    }
    return cudaGetLastError();
}

static cudaError_t launch_step_kernel(const decode_model *m, int kernel, cudaStream_t stream)
{
    const decode_config *c = &m->config;
    int last = 1 + KERNELS_PER_LAYER * c->layers;
    if (kernel == 0) {
        embed_kernel<<<blocks(c->dim, ROW_THREADS), ROW_THREADS, 0, stream>>>(m->embedding, m->tokens, m->position,
                                                                             m->x, c->dim, c->max_positions);
        return cudaGetLastError();
    }
    if (kernel < last) return launch_layer_op(m, (kernel - 1) / KERNELS_PER_LAYER, (kernel - 1) % KERNELS_PER_LAYER, stream);
    switch (kernel - last) {
    case 0: rmsnorm_kernel<<<1, WARP, 0, stream>>>(m->x, m->final_norm, m->xb, c->dim); break;
    case 1:
        gemv_kernel<<<blocks(c->vocab, ROW_THREADS), ROW_THREADS, 0, stream>>>(m->logits_weight, m->xb, m->logits,
                                                                              c->vocab, c->dim);
        break;
    case 2: argmax_kernel<<<1, 1, 0, stream>>>(m->logits, c->vocab, m->tokens, m->position, c->max_positions); break;
    case 3: advance_position_kernel<<<1, 1, 0, stream>>>(m->position, c->max_positions); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

extern "C" int decode_step_kernels(decode_config config) { return 1 + KERNELS_PER_LAYER * config.layers + 4; }

extern "C" const char *decode_kernel_name(decode_config config, int kernel, char *name, size_t size)
{
    static const char *const last_names[4] = {"final RMSNorm", "logits", "argmax", "advance position"};
    int last = 1 + KERNELS_PER_LAYER * config.layers;
    if (kernel == 0) snprintf(name, size, "embed");
    else if (kernel > 0 && kernel < last)
        snprintf(name, size, "L%d %s", (kernel - 1) / KERNELS_PER_LAYER, op_names[(kernel - 1) % KERNELS_PER_LAYER]);
    else if (kernel >= last && kernel < last + 4) snprintf(name, size, "%s", last_names[kernel - last]);
    else snprintf(name, size, "?");
    return name;
}

extern "C" cudaError_t decode_step_enqueue(const decode_model *model, cudaStream_t stream)
{
    if (!model) return cudaErrorInvalidValue;
    int kernels = decode_step_kernels(model->config);
    for (int k = 0; k < kernels; k++) {
        cudaError_t error = launch_step_kernel(model, k, stream);
        if (error != cudaSuccess) return error;
    }
    return cudaSuccess;
}

// ----------------------------------------------------------------------------
// Building, resetting and reading the model

static int config_is_valid(decode_config c)
{
    return c.layers >= 1 && c.heads >= 1 && c.head_dim >= 2 && c.head_dim % 2 == 0 && c.heads * c.head_dim == c.dim &&
           c.hidden >= 1 && c.vocab >= 1 && c.max_positions >= 1 && c.max_positions <= MAX_POSITIONS;
}

static float *device_floats(size_t count, cudaError_t *error)
{
    float *device = NULL;
    if (*error == cudaSuccess) *error = cudaMalloc(&device, count * sizeof(float));
    if (*error == cudaSuccess) *error = cudaMemset(device, 0, count * sizeof(float));
    return device;
}

extern "C" decode_model *decode_model_build(decode_config config, unsigned seed)
{
    if (!config_is_valid(config)) return NULL;
    decode_model *m = (decode_model *)calloc(1, sizeof *m);
    m->config = config;
    m->layers = (layer_weights *)calloc((size_t)config.layers, sizeof *m->layers);
    size_t count = decode_weight_count(config);
    float *host = (float *)malloc(count * sizeof(float));
    decode_fill_weights(config, seed, host);
    cudaError_t error = cudaSuccess;
    m->weights = device_floats(count, &error);
    if (error == cudaSuccess) error = cudaMemcpy(m->weights, host, count * sizeof(float), cudaMemcpyHostToDevice);
    free(host);
    /* the order of decode_fill_weights (reference.c) */
    size_t dim = (size_t)config.dim, hidden = (size_t)config.hidden, at = 0;
    m->embedding = m->weights + at, at += (size_t)config.vocab * dim;
    for (int l = 0; l < config.layers; l++) {
        layer_weights *w = &m->layers[l];
        w->attention_norm = m->weights + at, at += dim;
        w->wq = m->weights + at, at += dim * dim;
        w->wk = m->weights + at, at += dim * dim;
        w->wv = m->weights + at, at += dim * dim;
        w->wo = m->weights + at, at += dim * dim;
        w->mlp_norm = m->weights + at, at += dim;
        w->w_gate = m->weights + at, at += hidden * dim;
        w->w_up = m->weights + at, at += hidden * dim;
        w->w_down = m->weights + at, at += dim * hidden;
    }
    m->final_norm = m->weights + at, at += dim;
    m->logits_weight = m->weights + at;
    float **activations[] = {&m->x, &m->xb, &m->xb2, &m->q, &m->k, &m->v, &m->att};
    for (int i = 0; i < 7; i++) *activations[i] = device_floats(dim, &error);
    m->hb = device_floats(hidden, &error), m->hb2 = device_floats(hidden, &error);
    m->logits = device_floats((size_t)config.vocab, &error);
    size_t cache = (size_t)config.layers * config.max_positions * dim;
    m->key_cache = device_floats(cache, &error), m->value_cache = device_floats(cache, &error);
    if (error == cudaSuccess) error = cudaMalloc(&m->position, sizeof(int));
    if (error == cudaSuccess) error = cudaMalloc(&m->tokens, sizeof(int) * (size_t)(config.max_positions + 1));
    m->first_token = (int)(seed % (unsigned)config.vocab);
    if (error == cudaSuccess) error = decode_model_reset(m);
    if (error != cudaSuccess) {
        fprintf(stderr, "decode_model_build: %s\n", cudaGetErrorString(error));
        decode_model_free(m);
        return NULL;
    }
    return m;
}

extern "C" void decode_model_free(decode_model *m)
{
    if (!m) return;
    float *buffers[] = {m->weights, m->x, m->xb, m->xb2, m->q, m->k, m->v, m->att, m->hb, m->hb2, m->logits,
                        m->key_cache, m->value_cache};
    for (int i = 0; i < 13; i++) cudaFree(buffers[i]);
    cudaFree(m->position), cudaFree(m->tokens);
    free(m->layers);
    free(m);
}

extern "C" cudaError_t decode_model_reset(decode_model *m)
{
    const decode_config *c = &m->config;
    size_t cache = (size_t)c->layers * c->max_positions * c->dim * sizeof(float);
    cudaError_t error = cudaMemset(m->key_cache, 0, cache);
    if (error == cudaSuccess) error = cudaMemset(m->value_cache, 0, cache);
    if (error == cudaSuccess) error = cudaMemset(m->logits, 0xff, sizeof(float) * (size_t)c->vocab);
    if (error == cudaSuccess) error = cudaMemset(m->tokens, 0, sizeof(int) * (size_t)(c->max_positions + 1));
    if (error == cudaSuccess) error = cudaMemset(m->position, 0, sizeof(int));
    if (error == cudaSuccess) error = cudaMemcpy(m->tokens, &m->first_token, sizeof(int), cudaMemcpyHostToDevice);
    if (error == cudaSuccess) error = cudaDeviceSynchronize();
    return error;
}

extern "C" cudaError_t decode_model_logits(const decode_model *m, float *logits)
{
    return cudaMemcpy(logits, m->logits, sizeof(float) * (size_t)m->config.vocab, cudaMemcpyDeviceToHost);
}

extern "C" cudaError_t decode_model_position(const decode_model *m, int *position)
{
    return cudaMemcpy(position, m->position, sizeof(int), cudaMemcpyDeviceToHost);
}

extern "C" cudaError_t decode_model_tokens(const decode_model *m, int *tokens, int count)
{
    if (count < 0 || count > m->config.max_positions + 1) return cudaErrorInvalidValue;
    return cudaMemcpy(tokens, m->tokens, sizeof(int) * (size_t)count, cudaMemcpyDeviceToHost);
}
