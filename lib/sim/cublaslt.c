/* cublaslt.c — cuBLASLt on the CPU: cublasLtMatmul and the descriptors it reads.
 *
 * D = epilogue(alpha op(A) op(B) + beta C), column-major, each matrix described by a layout (type,
 * rows, columns, leading dimension, batch count and stride). The product is computed in float by the
 * simulator's cuBLAS (sim_gemm_to_floats in cublas.c: FP16 and BF16 inputs widened, FP32 inputs
 * narrowed as the compute type lets a GPU), then the epilogue works on the float result, which is
 * stored in D's type, rounded to nearest even. GELU is the tanh approximation,
 * 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), and DGELU its derivative. Every matrix and vector
 * must lie in one live cudaMalloc allocation, as for cuBLAS; an argument cuBLASLt refuses is
 * CUBLAS_STATUS_INVALID_VALUE, and what the simulator does not do is CUBLAS_STATUS_NOT_SUPPORTED,
 * each with one line on stderr. */
#include "initcheck.h"
#include "internal.h"
#include "runtime.h"

#include <cublasLt.h>
#include <math.h>
#include <sim_formats.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cublas.c */
int sim_matrix_on_device(const char *call, const char *name, const void *pointer, int rows, int cols, int ld,
                         size_t element);
float *sim_gemm_to_floats(cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, float alpha,
                          const void *A, cudaDataType a_type, int lda, const void *B, cudaDataType b_type, int ldb,
                          float beta, const void *C, cudaDataType c_type, int ldc, cublasComputeType_t compute);

struct sim_cublaslt_context { int unused; };
struct sim_cublaslt_matmul_desc {
    cublasComputeType_t compute;
    int32_t scale_type, pointer_mode, transa, transb, transc, bias_type, aux_type;
    uint32_t epilogue;
    const void *bias;
    void *aux;
    int64_t aux_ld, bias_batch_stride, aux_batch_stride;
};
struct sim_cublaslt_layout {
    uint32_t type;
    int32_t order, batch_count;
    uint64_t rows, cols;
    int64_t ld, batch_stride;
};
struct sim_cublaslt_preference { uint64_t max_workspace; };

static cublasStatus_t refuse(cublasStatus_t status, const char *call, const char *what)
{
    fprintf(stderr, "sim: %s: %s\n", call, what);
    return status;
}

/* ---------------------------------------------------------------------------------
 * Handles and descriptors */

cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle)
{
    if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
    *handle = sim_try_alloc(1, sizeof **handle);
    return *handle ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    free(handle);
    return CUBLAS_STATUS_SUCCESS;
}

const char *cublasLtGetStatusName(cublasStatus_t status) { return cublasGetStatusName(status); }
const char *cublasLtGetStatusString(cublasStatus_t status) { return cublasGetStatusString(status); }

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *desc, cublasComputeType_t compute_type,
                                        cudaDataType_t scale_type)
{
    if (!desc) return CUBLAS_STATUS_INVALID_VALUE;
    *desc = sim_try_alloc(1, sizeof **desc);
    if (!*desc) return CUBLAS_STATUS_ALLOC_FAILED;
    **desc = (struct sim_cublaslt_matmul_desc){.compute = compute_type, .scale_type = scale_type,
                                               .transa = CUBLAS_OP_N, .transb = CUBLAS_OP_N, .transc = CUBLAS_OP_N,
                                               .epilogue = CUBLASLT_EPILOGUE_DEFAULT, .bias_type = -1, .aux_type = -1};
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc)
{
    free(desc);
    return CUBLAS_STATUS_SUCCESS;
}

/* Copies an attribute's value into `field` when the caller's size is the attribute's. */
static cublasStatus_t set_field(const char *call, void *field, size_t field_bytes, const void *value, size_t bytes)
{
    if (!value || bytes != field_bytes) {
        fprintf(stderr, "sim: %s: the value %s (%zu bytes given, the attribute has %zu)\n", call,
                value ? "has the wrong size" : "is NULL", bytes, field_bytes);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    memcpy(field, value, bytes);
    return CUBLAS_STATUS_SUCCESS;
}
#define SET(field) set_field(call, &(field), sizeof(field), value, bytes)

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute,
                                              const void *value, size_t bytes)
{
    const char *call = "cublasLtMatmulDescSetAttribute";
    if (!desc) return CUBLAS_STATUS_NOT_INITIALIZED;
    switch (attribute) {
    case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE: return SET(desc->compute);
    case CUBLASLT_MATMUL_DESC_SCALE_TYPE: return SET(desc->scale_type);
    case CUBLASLT_MATMUL_DESC_POINTER_MODE: return SET(desc->pointer_mode);
    case CUBLASLT_MATMUL_DESC_TRANSA: return SET(desc->transa);
    case CUBLASLT_MATMUL_DESC_TRANSB: return SET(desc->transb);
    case CUBLASLT_MATMUL_DESC_TRANSC: return SET(desc->transc);
    case CUBLASLT_MATMUL_DESC_EPILOGUE: return SET(desc->epilogue);
    case CUBLASLT_MATMUL_DESC_BIAS_POINTER: return SET(desc->bias);
    case CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE: return SET(desc->bias_batch_stride);
    case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE: return SET(desc->bias_type);
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER: return SET(desc->aux);
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD: return SET(desc->aux_ld);
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE: return SET(desc->aux_batch_stride);
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE: return SET(desc->aux_type);
    default: break;
    }
    fprintf(stderr, "sim: %s: attribute %d is not simulated (the simulator's cuBLASLt takes the compute and scale "
            "types, the pointer mode, the transposes, the epilogue with its bias and aux pointers, leading dimension, "
            "batch strides and data types; no FP8 scaling)\n", call, (int)attribute);
    return CUBLAS_STATUS_NOT_SUPPORTED;
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *layout, cudaDataType type, uint64_t rows,
                                          uint64_t cols, int64_t ld)
{
    if (!layout) return CUBLAS_STATUS_INVALID_VALUE;
    *layout = sim_try_alloc(1, sizeof **layout);
    if (!*layout) return CUBLAS_STATUS_ALLOC_FAILED;
    **layout = (struct sim_cublaslt_layout){.type = (uint32_t)type, .order = CUBLASLT_ORDER_COL, .batch_count = 1,
                                            .rows = rows, .cols = cols, .ld = ld};
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout)
{
    free(layout);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attribute,
                                                const void *value, size_t bytes)
{
    const char *call = "cublasLtMatrixLayoutSetAttribute";
    if (!layout) return CUBLAS_STATUS_NOT_INITIALIZED;
    switch (attribute) {
    case CUBLASLT_MATRIX_LAYOUT_TYPE: return SET(layout->type);
    case CUBLASLT_MATRIX_LAYOUT_ORDER: return SET(layout->order);
    case CUBLASLT_MATRIX_LAYOUT_ROWS: return SET(layout->rows);
    case CUBLASLT_MATRIX_LAYOUT_COLS: return SET(layout->cols);
    case CUBLASLT_MATRIX_LAYOUT_LD: return SET(layout->ld);
    case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT: return SET(layout->batch_count);
    case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: return SET(layout->batch_stride);
    default: break;
    }
    fprintf(stderr, "sim: %s: attribute %d is not simulated (complex planes are not)\n", call, (int)attribute);
    return CUBLAS_STATUS_NOT_SUPPORTED;
}

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *preference)
{
    if (!preference) return CUBLAS_STATUS_INVALID_VALUE;
    *preference = sim_try_alloc(1, sizeof **preference);
    return *preference ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t preference)
{
    free(preference);
    return CUBLAS_STATUS_SUCCESS;
}

/* The preferences steer the choice among a GPU's kernels; the simulator has one way to multiply, so
 * each is checked for its size and, but for the workspace limit, has nothing to change. */
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t preference,
                                                    cublasLtMatmulPreferenceAttributes_t attribute, const void *value,
                                                    size_t bytes)
{
    const char *call = "cublasLtMatmulPreferenceSetAttribute";
    uint32_t ignored32;
    uint64_t ignored64;
    if (!preference) return CUBLAS_STATUS_NOT_INITIALIZED;
    switch (attribute) {
    case CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES: return SET(preference->max_workspace);
    case CUBLASLT_MATMUL_PREF_IMPL_MASK: return SET(ignored64);
    case CUBLASLT_MATMUL_PREF_SEARCH_MODE: case CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK:
    case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES: case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES:
    case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES: case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES:
    case CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT: return SET(ignored32);
    }
    fprintf(stderr, "sim: %s: attribute %d is not a cuBLASLt preference\n", call, (int)attribute);
    return CUBLAS_STATUS_INVALID_VALUE;
}
#undef SET

/* ---------------------------------------------------------------------------------
 * Checking a multiplication */

static int is_float_type(uint32_t type) { return type == CUDA_R_32F || type == CUDA_R_16F || type == CUDA_R_16BF; }
static size_t type_bytes(uint32_t type) { return type == CUDA_R_32F ? 4 : 2; }

typedef struct matmul_shape {
    int m, n, k, batches;
    cublasOperation_t transa, transb;
    uint32_t epilogue;
    cudaDataType bias_type, aux_type;
} matmul_shape;

static int epilogue_supported(uint32_t e)
{
    return e == CUBLASLT_EPILOGUE_DEFAULT || e == CUBLASLT_EPILOGUE_RELU || e == CUBLASLT_EPILOGUE_BIAS ||
           e == CUBLASLT_EPILOGUE_RELU_BIAS || e == CUBLASLT_EPILOGUE_GELU || e == CUBLASLT_EPILOGUE_GELU_BIAS ||
           e == CUBLASLT_EPILOGUE_GELU_AUX || e == CUBLASLT_EPILOGUE_GELU_AUX_BIAS || e == CUBLASLT_EPILOGUE_DGELU ||
           e == CUBLASLT_EPILOGUE_DGELU_BGRAD || e == CUBLASLT_EPILOGUE_BGRADA || e == CUBLASLT_EPILOGUE_BGRADB;
}
static int uses_bias(uint32_t e) { return (e & CUBLASLT_EPILOGUE_BIAS) || (e & 16) || e >= CUBLASLT_EPILOGUE_BGRADA; }
static int uses_aux(uint32_t e) { return (e & 128) != 0; }

/* The sizes of the multiplication from the layouts, or a status with its reason on stderr. */
static cublasStatus_t check_matmul(const char *call, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a,
                                   cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                                   matmul_shape *s)
{
    char why[300];
    if (!a || !b || !c || !d) return refuse(CUBLAS_STATUS_INVALID_VALUE, call, "a matrix layout is NULL");
    cublasLtMatrixLayout_t all[4] = {a, b, c, d};
    for (int i = 0; i < 4; i++)
        if (all[i]->order != CUBLASLT_ORDER_COL)
            return refuse(CUBLAS_STATUS_NOT_SUPPORTED, call, "only CUBLASLT_ORDER_COL (column-major) layouts are "
                          "simulated: describe a row-major matrix as its transpose");
    if (!is_float_type(a->type) || b->type != a->type || c->type != d->type ||
        (d->type != CUDA_R_32F && d->type != a->type)) {
        snprintf(why, sizeof why, "types A %u, B %u, C %u, D %u: the simulator takes FP32, FP16 or BF16 A and B "
                 "(alike), and C and D alike, FP32 or A's type", a->type, b->type, c->type, d->type);
        return refuse(CUBLAS_STATUS_NOT_SUPPORTED, call, why);
    }
    int compute_ok = desc->compute == CUBLAS_COMPUTE_32F || desc->compute == CUBLAS_COMPUTE_32F_PEDANTIC ||
                     desc->compute == CUBLAS_COMPUTE_32F_FAST_TF32 || desc->compute == CUBLAS_COMPUTE_32F_FAST_16F ||
                     desc->compute == CUBLAS_COMPUTE_32F_FAST_16BF;
    if (!compute_ok || desc->scale_type != CUDA_R_32F)
        return refuse(CUBLAS_STATUS_NOT_SUPPORTED, call, "the simulator computes in FP32 (a CUBLAS_COMPUTE_32F* compute "
                      "type) with FP32 alpha and beta (scale type CUDA_R_32F)");
    if (desc->pointer_mode != CUBLASLT_POINTER_MODE_HOST)
        return refuse(CUBLAS_STATUS_NOT_SUPPORTED, call, "alpha and beta are read through host pointers only "
                      "(CUBLASLT_POINTER_MODE_HOST)");
    if ((desc->transa != CUBLAS_OP_N && desc->transa != CUBLAS_OP_T) ||
        (desc->transb != CUBLAS_OP_N && desc->transb != CUBLAS_OP_T) || desc->transc != CUBLAS_OP_N)
        return refuse(CUBLAS_STATUS_NOT_SUPPORTED, call, "TRANSA and TRANSB must be CUBLAS_OP_N or CUBLAS_OP_T, "
                      "and TRANSC CUBLAS_OP_N");
    if (!epilogue_supported(desc->epilogue)) {
        snprintf(why, sizeof why, "epilogue %u is not simulated (DEFAULT, RELU, BIAS, RELU_BIAS, GELU, GELU_BIAS, "
                 "GELU_AUX, GELU_AUX_BIAS, DGELU, DGELU_BGRAD, BGRADA and BGRADB are)", desc->epilogue);
        return refuse(CUBLAS_STATUS_NOT_SUPPORTED, call, why);
    }
    s->transa = (cublasOperation_t)desc->transa, s->transb = (cublasOperation_t)desc->transb;
    s->epilogue = desc->epilogue;
    s->m = (int)d->rows, s->n = (int)d->cols;
    s->k = (int)(s->transa == CUBLAS_OP_N ? a->cols : a->rows);
    uint64_t a_m = s->transa == CUBLAS_OP_N ? a->rows : a->cols;
    uint64_t b_k = s->transb == CUBLAS_OP_N ? b->rows : b->cols, b_n = s->transb == CUBLAS_OP_N ? b->cols : b->rows;
    if (d->rows > INT32_MAX || d->cols > INT32_MAX || a->rows > INT32_MAX || a->cols > INT32_MAX || a_m != d->rows ||
        b_k != (uint64_t)s->k || b_n != d->cols || c->rows != d->rows || c->cols != d->cols) {
        snprintf(why, sizeof why, "the layouts do not fit together: op(A) is %llu x %llu, op(B) %llu x %llu, C %llu x "
                 "%llu and D %llu x %llu (op(A) must be m x k, op(B) k x n, C and D m x n)", (unsigned long long)a_m,
                 (unsigned long long)s->k, (unsigned long long)b_k, (unsigned long long)b_n,
                 (unsigned long long)c->rows, (unsigned long long)c->cols, (unsigned long long)d->rows,
                 (unsigned long long)d->cols);
        return refuse(CUBLAS_STATUS_INVALID_VALUE, call, why);
    }
    for (int i = 0; i < 4; i++)
        if (all[i]->ld < (int64_t)(all[i]->rows > 1 ? all[i]->rows : 1) || all[i]->ld > INT32_MAX ||
            all[i]->batch_count != d->batch_count || all[i]->batch_count < 1) {
            snprintf(why, sizeof why, "layout %c: leading dimension %lld for %llu rows, batch count %d (D's is %d): "
                     "each leading dimension must be at least its rows, and every batch count the same", "ABCD"[i],
                     (long long)all[i]->ld, (unsigned long long)all[i]->rows, all[i]->batch_count, d->batch_count);
            return refuse(CUBLAS_STATUS_INVALID_VALUE, call, why);
        }
    s->batches = d->batch_count;
    s->bias_type = desc->bias_type < 0 ? (cudaDataType)d->type : (cudaDataType)desc->bias_type;
    s->aux_type = desc->aux_type < 0 ? (cudaDataType)d->type : (cudaDataType)desc->aux_type;
    if (uses_bias(s->epilogue) && (!is_float_type(s->bias_type) || (s->bias_type != CUDA_R_32F && s->bias_type != d->type)))
        return refuse(CUBLAS_STATUS_NOT_SUPPORTED, call, "the bias must be FP32 or of D's type");
    if (uses_aux(s->epilogue) && (s->aux_type != d->type || desc->aux_ld < s->m))
        return refuse(CUBLAS_STATUS_INVALID_VALUE, call, "the GELU aux matrix needs CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD "
                      "of at least D's rows, and D's type");
    return CUBLAS_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------------------------
 * The multiplication and its epilogue */

static float load(const void *p, cudaDataType type, size_t i)
{
    if (type == CUDA_R_32F) return ((const float *)p)[i];
    unsigned short bits = ((const unsigned short *)p)[i];
    return type == CUDA_R_16BF ? sim_bfloat16_bits_to_float(bits) : sim_half_bits_to_float(bits);
}

static void store(void *p, cudaDataType type, size_t i, float v)
{
    sim_initcheck_written((char *)p + i * type_bytes(type), type_bytes(type));
    if (type == CUDA_R_32F) ((float *)p)[i] = v;
    else ((unsigned short *)p)[i] = type == CUDA_R_16BF ? sim_float_to_bfloat16_bits(v, SIM_TO_NEAREST_EVEN)
                                                        : sim_float_to_half_bits(v, SIM_TO_NEAREST_EVEN);
}

static const float GELU_SCALE = 0.7978845608f;   /* sqrt(2 / pi) */
static float gelu(float x) { return 0.5f * x * (1.0f + tanhf(GELU_SCALE * (x + 0.044715f * x * x * x))); }
static float gelu_derivative(float x)
{
    float t = tanhf(GELU_SCALE * (x + 0.044715f * x * x * x));
    return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * GELU_SCALE * (1.0f + 3.0f * 0.044715f * x * x);
}

/* One matrix of the batch: the product in float, the epilogue, D stored. */
static void epilogue_and_store(const matmul_shape *s, cublasLtMatmulDesc_t desc, float *x, void *D, cudaDataType d_type,
                               int ldd, const void *bias, void *aux, const void *B, cudaDataType b_type, int ldb,
                               const void *A, cudaDataType a_type, int lda)
{
    uint32_t e = s->epilogue;
    int gelu_forward = (e & CUBLASLT_EPILOGUE_GELU) != 0, relu = (e & CUBLASLT_EPILOGUE_RELU) != 0;
    for (int j = 0; j < s->n; j++)
        for (int i = 0; i < s->m; i++) {
            float v = x[(size_t)j * s->m + i];
            if (e & CUBLASLT_EPILOGUE_BIAS) v += load(bias, s->bias_type, (size_t)i);
            size_t aux_at = (size_t)j * (size_t)desc->aux_ld + (size_t)i;
            if (gelu_forward && uses_aux(e)) store(aux, s->aux_type, aux_at, v);
            if (gelu_forward) v = gelu(v);
            if (relu) v = v > 0 ? v : 0;
            if (e == CUBLASLT_EPILOGUE_DGELU || e == CUBLASLT_EPILOGUE_DGELU_BGRAD)
                v *= gelu_derivative(load(aux, s->aux_type, aux_at));
            x[(size_t)j * s->m + i] = v;
            store(D, d_type, (size_t)j * (size_t)ldd + (size_t)i, v);
        }
    /* Bias gradients: the sums of D's rows (DGELU_BGRAD), of op(A)'s rows (BGRADA, over k, one per row
     * of D) or of op(B)'s columns (BGRADB, over k, one per column of D). */
    if (e == CUBLASLT_EPILOGUE_DGELU_BGRAD)
        for (int i = 0; i < s->m; i++) {
            float sum = 0;
            for (int j = 0; j < s->n; j++) sum += x[(size_t)j * s->m + i];
            store((void *)bias, s->bias_type, (size_t)i, sum);
        }
    if (e == CUBLASLT_EPILOGUE_BGRADA)
        for (int i = 0; i < s->m; i++) {
            float sum = 0;
            for (int kk = 0; kk < s->k; kk++)
                sum += load(A, a_type, s->transa == CUBLAS_OP_N ? (size_t)kk * lda + i : (size_t)i * lda + kk);
            store((void *)bias, s->bias_type, (size_t)i, sum);
        }
    if (e == CUBLASLT_EPILOGUE_BGRADB)
        for (int j = 0; j < s->n; j++) {
            float sum = 0;
            for (int kk = 0; kk < s->k; kk++)
                sum += load(B, b_type, s->transb == CUBLAS_OP_N ? (size_t)j * ldb + kk : (size_t)kk * ldb + j);
            store((void *)bias, s->bias_type, (size_t)j, sum);
        }
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                              cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                              cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                                              cublasLtMatmulPreference_t preference, int requested,
                                              cublasLtMatmulHeuristicResult_t results[], int *returned)
{
    const char *call = "cublasLtMatmulAlgoGetHeuristic";
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!desc || !preference || requested <= 0 || !results || !returned)
        return refuse(CUBLAS_STATUS_INVALID_VALUE, call, "a NULL descriptor, preference, result or count, or fewer "
                      "than one algorithm requested");
    matmul_shape s;
    *returned = 0;
    cublasStatus_t status = check_matmul(call, desc, a, b, c, d, &s);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    memset(&results[0], 0, sizeof results[0]);
    results[0].state = CUBLAS_STATUS_SUCCESS;   /* one algorithm, needing no workspace */
    results[0].wavesCount = 1.0f;
    *returned = 1;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void *alpha, const void *A,
                              cublasLtMatrixLayout_t a_layout, const void *B, cublasLtMatrixLayout_t b_layout,
                              const void *beta, const void *C, cublasLtMatrixLayout_t c_layout, void *D,
                              cublasLtMatrixLayout_t d_layout, const cublasLtMatmulAlgo_t *algo, void *workspace,
                              size_t workspace_bytes, cudaStream_t stream)
{
    const char *call = "cublasLtMatmul";
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!desc || !alpha || !beta) return refuse(CUBLAS_STATUS_INVALID_VALUE, call, "a NULL descriptor, alpha or beta");
    enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &capture) == cudaSuccess && capture != cudaStreamCaptureStatusNone)
        return refuse(CUBLAS_STATUS_NOT_SUPPORTED, call, "the stream is being captured, and the simulator's graphs "
                      "record kernels, copies and memsets, not cuBLASLt calls: call it outside the capture");
    matmul_shape s;
    cublasStatus_t status = check_matmul(call, desc, a_layout, b_layout, c_layout, d_layout, &s);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    float a_scale = *(const float *)alpha, b_scale = *(const float *)beta;
    cudaDataType a_type = (cudaDataType)a_layout->type, d_type = (cudaDataType)d_layout->type;
    int lda = (int)a_layout->ld, ldb = (int)b_layout->ld, ldc = (int)c_layout->ld, ldd = (int)d_layout->ld;
    int a_rows = (int)a_layout->rows, a_cols = (int)a_layout->cols, b_rows = (int)b_layout->rows,
        b_cols = (int)b_layout->cols;
    int bias_length = s.epilogue == CUBLASLT_EPILOGUE_BGRADB ? s.n : s.m;
    for (int batch = 0; batch < s.batches; batch++) {
        const char *a_at = (const char *)A + batch * a_layout->batch_stride * (int64_t)type_bytes(a_type);
        const char *b_at = (const char *)B + batch * b_layout->batch_stride * (int64_t)type_bytes(a_type);
        const char *c_at = (const char *)C + batch * c_layout->batch_stride * (int64_t)type_bytes(d_type);
        char *d_at = (char *)D + batch * d_layout->batch_stride * (int64_t)type_bytes(d_type);
        const char *bias_at = (const char *)desc->bias + batch * desc->bias_batch_stride * (int64_t)type_bytes(s.bias_type);
        char *aux_at = (char *)desc->aux + batch * desc->aux_batch_stride * (int64_t)type_bytes(s.aux_type);
        if ((s.k && (!sim_matrix_on_device(call, "A", a_at, a_rows, a_cols, lda, type_bytes(a_type)) ||
                     !sim_matrix_on_device(call, "B", b_at, b_rows, b_cols, ldb, type_bytes(a_type)))) ||
            (b_scale != 0 && !sim_matrix_on_device(call, "C", c_at, s.m, s.n, ldc, type_bytes(d_type))) ||
            !sim_matrix_on_device(call, "D", d_at, s.m, s.n, ldd, type_bytes(d_type)) ||
            (uses_bias(s.epilogue) &&
             !sim_matrix_on_device(call, "the bias", bias_at, bias_length, 1, bias_length, type_bytes(s.bias_type))) ||
            (uses_aux(s.epilogue) &&
             !sim_matrix_on_device(call, "the aux matrix", aux_at, s.m, s.n, (int)desc->aux_ld, type_bytes(s.aux_type))))
            return CUBLAS_STATUS_EXECUTION_FAILED;
        float *x = sim_gemm_to_floats(s.transa, s.transb, s.m, s.n, s.k, a_scale, a_at, a_type, lda, b_at, a_type, ldb,
                                      b_scale, c_at, d_type, ldc, desc->compute);
        if (!x) return CUBLAS_STATUS_ALLOC_FAILED;
        epilogue_and_store(&s, desc, x, d_at, d_type, ldd, bias_at, aux_at, b_at, a_type, ldb, a_at, a_type, lda);
        free(x);
    }
    return CUBLAS_STATUS_SUCCESS;
}
