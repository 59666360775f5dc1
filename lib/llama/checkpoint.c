/* checkpoint.c — llama2.c checkpoint files: reading (memory-mapped; the header and the size
 * checked before a pointer is laid over the bytes, every value before the engine uses it)
 * and writing, in the three formats of llama2.c's export.py:
 *   version 0 (legacy_export): 7 int32 — dim, hidden_dim, n_layers, n_heads, n_kv_heads,
 *     vocab_size, seq_len — where a negative vocab_size means the classifier is untied;
 *     then the FP32 tensors, including RoPE's cos/sin table, which readers skip.
 *   version 1 (version1_export): a 256-byte header — uint32 magic "ak42" (0x616b3432),
 *     int32 version, the 7 int32, a uint8 shared-classifier flag, zeros — then the FP32
 *     tensors in another order (weights.c lists both orders).
 *   version 2 (version2_export; what runq.c reads): version 1's header with version 2 and,
 *     right after the flag at byte 37 (unaligned), the int32 group size; then the norm
 *     vectors in FP32 (every attention_norm, every ffn_norm, norm), then each matrix in
 *     version 1's order as its INT8 values followed by its FP32 scales, one per group of
 *     group_size consecutive values (scale = max|w| / 127, as quantize.c computes it). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "weights.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAGIC = 0x616b3432, VERSION0_HEADER_BYTES = 28, HEADER_BYTES = 256, FLAG_AT = 36, GROUP_SIZE_AT = 37 };
enum { CHECKPOINT_ALIGNMENT = 64 };   /* a cache line: where a body must start to be read in place */

/* ----------------------------------------------------------------------------------
 * The header, and the size the header promises */

typedef struct {
    llama_config config;
    int version, group_size;
    int64_t header_bytes, file_bytes;
} CheckpointHeader;

static int64_t body_bytes(const llama_config *c, int version, int group_size)
{
    if (version == 2) return llama_weights_bytes_of(c, WEIGHTS_INT8, group_size);
    return 4 * llama_lay_out_tensors(NULL, c, version, NULL);
}

static int64_t expected_file_bytes(const CheckpointHeader *h)
{
    return h->header_bytes + body_bytes(&h->config, h->version, h->group_size);
}

/* The vocab_size for which the header's shape has exactly the file's size, or 0 if none
 * (or the header's own): a header that says 32001 over the tensors of 32000 tokens is told
 * apart from a file cut short. A body's size grows by the same bytes with every token. */
static int vocab_that_fits(const CheckpointHeader *h)
{
    llama_config one = h->config, two = h->config;
    one.vocab_size = 1, two.vocab_size = 2;
    int64_t per_token = body_bytes(&two, h->version, h->group_size) - body_bytes(&one, h->version, h->group_size);
    int64_t rest = h->file_bytes - h->header_bytes - (body_bytes(&one, h->version, h->group_size) - per_token);
    if (per_token <= 0 || rest <= 0 || rest % per_token != 0 || rest / per_token > INT32_MAX) return 0;
    int vocab = (int)(rest / per_token);
    return vocab != h->config.vocab_size ? vocab : 0;
}

static void describe(char *text, size_t size, const llama_config *c)
{
    snprintf(text, size, "dim %d, hidden_dim %d, n_layers %d, n_heads %d, n_kv_heads %d, vocab_size %d, seq_len %d, %s classifier",
             c->dim, c->hidden_dim, c->n_layers, c->n_heads, c->n_kv_heads, c->vocab_size, c->seq_len,
             c->shared_classifier ? "tied" : "untied");
}

static int read_header(const char *path, CheckpointHeader *h, char *error, size_t error_size)
{
    memset(h, 0, sizeof *h);
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(error, error_size, "cannot open checkpoint %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        snprintf(error, error_size, "%s is a directory, not a checkpoint file", path);
        return -1;
    }
    unsigned char bytes[HEADER_BYTES] = {0};
    ssize_t got = read(fd, bytes, sizeof bytes);
    close(fd);
    if (got < 0) {
        snprintf(error, error_size, "cannot read checkpoint %s: %s", path, strerror(errno));
        return -1;
    }
    h->file_bytes = st.st_size;
    if (got < VERSION0_HEADER_BYTES) {
        snprintf(error, error_size, "%s is truncated: %lld bytes, shorter than the smallest llama2.c header (%d bytes)",
                 path, (long long)got, VERSION0_HEADER_BYTES);
        return -1;
    }
    int32_t fields[9];
    memcpy(fields, bytes, sizeof fields);
    const int32_t *shape;
    if ((uint32_t)fields[0] == MAGIC) {
        h->version = fields[1];
        if (h->version != 1 && h->version != 2) {
            snprintf(error, error_size, "%s has llama2.c's magic number but version %d; versions 0, 1 (FP32) and 2 "
                     "(INT8) are read", path, h->version);
            return -1;
        }
        if (got < HEADER_BYTES) {
            snprintf(error, error_size, "%s is truncated: %lld bytes, shorter than a version-%d header (%d bytes)",
                     path, (long long)got, h->version, HEADER_BYTES);
            return -1;
        }
        shape = fields + 2;
        h->header_bytes = HEADER_BYTES;
        h->config.shared_classifier = bytes[FLAG_AT];
        if (h->version == 2) memcpy(&h->group_size, bytes + GROUP_SIZE_AT, sizeof h->group_size);
    } else {
        h->version = 0;
        shape = fields;
        h->header_bytes = VERSION0_HEADER_BYTES;
        h->config.shared_classifier = shape[5] > 0;
    }
    llama_config *c = &h->config;
    c->dim = shape[0], c->hidden_dim = shape[1], c->n_layers = shape[2], c->n_heads = shape[3];
    c->n_kv_heads = shape[4], c->vocab_size = shape[5], c->seq_len = shape[6];
    if (h->version == 0 && c->vocab_size < 0 && c->vocab_size != INT32_MIN) c->vocab_size = -c->vocab_size;

    char reason[400], shape_text[240];
    describe(shape_text, sizeof shape_text, c);
    if (llama_validate_config(c, reason, sizeof reason) != 0) {
        snprintf(error, error_size, "%s is not a llama2.c checkpoint (version %d header read as %s): %s",
                 path, h->version, shape_text, reason);
        return -1;
    }
    if (h->version == 2 && llama_check_group_size(c, h->group_size, reason, sizeof reason) != 0) {
        snprintf(error, error_size, "%s: its version-2 header is inconsistent: %s. runq.c's layout needs every group "
                 "within one row; re-export it with such a group size", path, reason);
        return -1;
    }
    int64_t expected = expected_file_bytes(h);
    if (h->file_bytes != expected) {
        CheckpointHeader flipped = *h;
        flipped.config.shared_classifier = !c->shared_classifier;
        int fitting = vocab_that_fits(h);
        if (expected_file_bytes(&flipped) == h->file_bytes)
            snprintf(error, error_size, "%s does not match its header: the header says the classifier is %s, but the "
                     "file's size, %lld bytes, is that of a version-%d checkpoint with %s classifier; fix the header's "
                     "%s, or export the model again", path, c->shared_classifier ? "tied" : "untied",
                     (long long)h->file_bytes, h->version, c->shared_classifier ? "its own (untied)" : "a tied",
                     h->version == 0 ? "sign of vocab_size" : "shared-classifier flag (byte 36)");
        else if (fitting)
            snprintf(error, error_size, "%s does not match its header: a version-%d checkpoint of the header's shape (%s) "
                     "has %lld bytes, this file has %lld, which is exactly the size for vocab_size %d: the header's "
                     "vocab_size %d is wrong (fix the header, or export the model again)", path, h->version, shape_text,
                     (long long)expected, (long long)h->file_bytes, fitting, c->vocab_size);
        else if (h->file_bytes < expected)
            snprintf(error, error_size, "%s is truncated: %lld bytes, but a version-%d checkpoint of its header's shape (%s) "
                     "has %lld bytes (%lld more): the file was cut short (copy it again), or its header does not describe "
                     "its tensors", path, (long long)h->file_bytes, h->version, shape_text, (long long)expected,
                     (long long)(expected - h->file_bytes));
        else
            snprintf(error, error_size, "%s has %lld bytes, %lld more than a version-%d checkpoint of its shape (%s) "
                     "holds: not a llama2.c checkpoint, or not the shape its header says", path,
                     (long long)h->file_bytes, (long long)(h->file_bytes - expected), h->version, shape_text);
        return -1;
    }
    return 0;
}

int llama_read_checkpoint_config(const char *path, llama_config *config, int *version, char *error, size_t error_size)
{
    CheckpointHeader h;
    if (read_header(path, &h, error, error_size) != 0) return -1;
    *config = h.config;
    if (version) *version = h.version;
    return 0;
}

/* ----------------------------------------------------------------------------------
 * Reading: map the file, lay the tensors over it, check every value */

/* Lays a version-2 body over the transformer: the norms point into the file, and each
 * matrix's INT8 values are copied onto large pages and its scales (in the file they need not
 * be 4-byte aligned) into t->scale_storage, both in the order a decode step reads the
 * matrices (llama_step_matrix), as quantize.c stores them; the file
 * keeps llama2.c's order (every layer's wq, then every layer's wk, ...) on the mapping's small
 * pages. Loading copies the INT8 values once (110 MB for 110M). */
static int lay_out_version2(llama_transformer *t, const llama_config *c, int group_size, const unsigned char *body, const char *path,
                            char *error, size_t error_size)
{
    int64_t at = 0;
    for (const int *kind = llama_tensor_order(2); *kind >= 0; kind++) {
        if (!llama_tensor_present(c, *kind)) continue;
        int rows, cols, layers = llama_tensor_is_per_layer(*kind) ? c->n_layers : 1;
        llama_tensor_shape(c, *kind, &rows, &cols);
        int64_t count = (int64_t)rows * cols;
        for (int layer = 0; layer < layers; layer++) {
            if (!llama_tensor_is_matrix(*kind)) {
                llama_set_tensor(t, *kind, layer, (const float *)(body + at));
                at += 4 * count;
                continue;
            }
            /* in the file for now: the copies below take its place */
            *llama_matrix_slot(t, *kind, layer) = (llama_weight_matrix){.rows = rows, .cols = cols, .format = WEIGHTS_INT8,
                .int8 = (const int8_t *)(body + at), .group_size = group_size};
            at += count + 4 * (count / group_size);
        }
    }
    int64_t values = llama_matrix_parameter_count(c);
    t->int8_storage = llama_allocate_large_pages((size_t)values);
    t->scale_storage = malloc((size_t)(values / group_size) * sizeof(float));
    if (!t->int8_storage || !t->scale_storage) {
        snprintf(error, error_size, "out of memory for a copy of the %lld INT8 weights of %s and their scales", (long long)values,
                 path);
        return -1;
    }
    int64_t value_at = 0, scale_at = 0;
    llama_tensor_kind kind;
    int layer;
    for (int index = 0; llama_step_matrix(c, index, &kind, &layer); index++) {
        llama_weight_matrix *m = llama_matrix_slot(t, kind, layer);
        int64_t count = (int64_t)m->rows * m->cols;
        memcpy(t->int8_storage + value_at, m->int8, (size_t)count);
        memcpy(t->scale_storage + scale_at, (const unsigned char *)m->int8 + count, (size_t)(count / group_size) * sizeof(float));
        m->int8 = t->int8_storage + value_at, m->scales = t->scale_storage + scale_at;
        value_at += count, scale_at += count / group_size;
    }
    if (c->shared_classifier) t->classifier = t->token_embedding;
    return 0;
}

/* One tensor's values (or an INT8 matrix's scales) within [smallest, largest]; NaN is not. */
static int check_values(const char *path, const float *values, int64_t count, float smallest, float largest,
                        llama_tensor_kind kind, int layer, int scales, char *error, size_t error_size)
{
    for (int64_t i = 0; i < count; i++) {
        float v = values[i];
        if (v >= smallest && v <= largest) continue;
        char where[120], what[200];
        if (llama_tensor_is_per_layer(kind)) snprintf(where, sizeof where, "%s of layer %d", llama_tensor_name(kind), layer);
        else snprintf(where, sizeof where, "%s", llama_tensor_name(kind));
        if (isnan(v)) snprintf(what, sizeof what, "NaN, not a number");
        else if (isinf(v)) snprintf(what, sizeof what, "an infinity");
        else if (scales && v < 0) snprintf(what, sizeof what, "a negative scale (a scale is max|w| / 127)");
        else if (scales) snprintf(what, sizeof what, "a scale of %g, for weights up to %g, beyond the bound |w| <= %g this "
                                  "engine accepts (see LLAMA_MAX_WEIGHT_MAGNITUDE in llama.h)", v, v * 127.0,
                                  (double)LLAMA_MAX_WEIGHT_MAGNITUDE);
        else snprintf(what, sizeof what, "%g, beyond the bound |w| <= %g this engine accepts (see LLAMA_MAX_WEIGHT_MAGNITUDE "
                      "in llama.h)", v, (double)LLAMA_MAX_WEIGHT_MAGNITUDE);
        snprintf(error, error_size, "%s: %s%s holds %s at index %lld: the file is corrupt, or was not written from a "
                 "trained model; export it again", path, where, scales ? " (its INT8 scales)" : "", what, (long long)i);
        return -1;
    }
    return 0;
}

static int check_weights(const llama_transformer *t, const char *path, char *error, size_t error_size)
{
    const llama_config *c = &t->config;
    for (int kind = 0; kind < TENSOR_KINDS; kind++) {
        if (!llama_tensor_present(c, kind) || kind == TENSOR_ROPE_COS || kind == TENSOR_ROPE_SIN) continue;
        int rows, cols;
        llama_tensor_shape(c, kind, &rows, &cols);
        int64_t count = (int64_t)rows * cols;
        for (int layer = 0; layer < (llama_tensor_is_per_layer(kind) ? c->n_layers : 1); layer++) {
            int failed;
            if (t->format == WEIGHTS_INT8 && llama_tensor_is_matrix(kind))
                failed = check_values(path, llama_matrix_slot((llama_transformer *)t, kind, layer)->scales, count / t->group_size,
                                      0.0f, LLAMA_MAX_WEIGHT_MAGNITUDE / 127.0f, kind, layer, 1, error, error_size);
            else
                failed = check_values(path, llama_get_tensor(t, kind, layer), count, -LLAMA_MAX_WEIGHT_MAGNITUDE,
                                      LLAMA_MAX_WEIGHT_MAGNITUDE, kind, layer, 0, error, error_size);
            if (failed) return -1;
        }
    }
    return 0;
}

int llama_build_transformer_from_checkpoint(llama_transformer *t, const char *path, char *error, size_t error_size)
{
    memset(t, 0, sizeof *t);
    CheckpointHeader h;
    if (read_header(path, &h, error, error_size) != 0) return -1;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(error, error_size, "cannot open checkpoint %s: %s", path, strerror(errno));
        return -1;
    }
    void *mapping = mmap(NULL, (size_t)h.file_bytes, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);   /* the mapping stays valid */
    if (mapping == MAP_FAILED) {
        snprintf(error, error_size, "cannot map checkpoint %s (%lld bytes): %s", path, (long long)h.file_bytes, strerror(errno));
        return -1;
    }
    if (llama_prepare_transformer(t, &h.config, error, error_size) != 0) {
        munmap(mapping, (size_t)h.file_bytes);
        return -1;
    }
    t->mapping = mapping;
    t->mapping_bytes = (size_t)h.file_bytes;
    const unsigned char *body = (const unsigned char *)mapping + h.header_bytes;
    if (h.version == 2) {
        if (lay_out_version2(t, &h.config, h.group_size, body, path, error, error_size) != 0) {
            llama_free_transformer(t);
            return -1;
        }
        t->format = WEIGHTS_INT8;
        t->group_size = h.group_size;
        t->weights_bytes = llama_weights_bytes_of(&h.config, WEIGHTS_INT8, h.group_size);
    } else if ((uintptr_t)body % CHECKPOINT_ALIGNMENT != 0) {
        /* Version 0's header is 28 bytes, so every tensor of its body starts 28 bytes into a
         * cache line, and each vector load of a weight row spans two lines. The body is
         * copied onto large pages once, which costs a longer load and repays it in every
         * step. */
        size_t body_bytes = (size_t)h.file_bytes - (size_t)h.header_bytes;
        t->fp32_storage = llama_allocate_large_pages(body_bytes);
        if (!t->fp32_storage) {
            snprintf(error, error_size, "out of memory for a copy of the %zu bytes of weights in %s", body_bytes, path);
            llama_free_transformer(t);
            return -1;
        }
        memcpy(t->fp32_storage, body, body_bytes);
        munmap(t->mapping, t->mapping_bytes);
        t->mapping = NULL;
        llama_lay_out_tensors(t, &h.config, h.version, t->fp32_storage);
    } else {
        llama_lay_out_tensors(t, &h.config, h.version, (const float *)body);
    }
    if (check_weights(t, path, error, error_size) != 0) {
        llama_free_transformer(t);
        return -1;
    }
    return 0;
}

/* ----------------------------------------------------------------------------------
 * Writing */

int llama_write_checkpoint(const llama_transformer *t, const char *path, int version, char *error, size_t error_size)
{
    const llama_config *c = &t->config;
    if (version < 0 || version > 2) {
        snprintf(error, error_size, "checkpoint version %d cannot be written; versions 0 and 1 (FP32) and 2 (INT8) can", version);
        return -1;
    }
    if (t->format == WEIGHTS_INT4) {
        snprintf(error, error_size, "an INT4 model cannot be written: llama2.c's checkpoints hold FP32 (versions 0 and 1) "
                 "or INT8 (version 2) weights; write the FP32 model, or quantize it to INT8 (--weights int8)");
        return -1;
    }
    if (version == 2 && t->format != WEIGHTS_INT8) {
        snprintf(error, error_size, "a version-2 checkpoint holds INT8 weights, and this model is FP32: quantize it first "
                 "(llama_quantize_transformer; tools/llama --weights int8)");
        return -1;
    }
    if (version != 2 && t->format != WEIGHTS_FP32) {
        snprintf(error, error_size, "an INT8 model is written as version 2; versions 0 and 1 hold FP32 weights (write "
                 "those before quantizing)");
        return -1;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(error, error_size, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    int32_t shape[7] = {c->dim, c->hidden_dim, c->n_layers, c->n_heads, c->n_kv_heads, c->vocab_size, c->seq_len};
    int ok = 1;
    if (version == 0) {
        if (!c->shared_classifier) shape[5] = -shape[5];
        ok = fwrite(shape, sizeof shape, 1, f) == 1;
    } else {
        unsigned char header[HEADER_BYTES] = {0};
        uint32_t magic = MAGIC;
        int32_t version_field = version;
        memcpy(header, &magic, 4);
        memcpy(header + 4, &version_field, 4);
        memcpy(header + 8, shape, sizeof shape);
        header[FLAG_AT] = (unsigned char)c->shared_classifier;
        if (version == 2) memcpy(header + GROUP_SIZE_AT, &t->group_size, sizeof t->group_size);
        ok = fwrite(header, sizeof header, 1, f) == 1;
    }
    for (const int *kind = llama_tensor_order(version); ok && *kind >= 0; kind++) {
        if (!llama_tensor_present(c, *kind)) continue;
        int rows, cols, layers = llama_tensor_is_per_layer(*kind) ? c->n_layers : 1;
        llama_tensor_shape(c, *kind, &rows, &cols);
        size_t count = (size_t)rows * (size_t)cols;
        for (int layer = 0; ok && layer < layers; layer++) {
            if (version == 2 && llama_tensor_is_matrix(*kind)) {
                const llama_weight_matrix *m = llama_matrix_slot((llama_transformer *)t, *kind, layer);
                ok = fwrite(m->int8, 1, count, f) == count &&
                     fwrite(m->scales, sizeof(float), count / (size_t)t->group_size, f) == count / (size_t)t->group_size;
            } else {
                ok = fwrite(llama_get_tensor(t, *kind, layer), sizeof(float), count, f) == count;
            }
        }
    }
    if (fclose(f) != 0) ok = 0;
    if (!ok) {
        snprintf(error, error_size, "writing %s failed: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
