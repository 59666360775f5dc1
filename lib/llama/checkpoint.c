/* checkpoint.c — llama2.c checkpoint files: reading (memory-mapped, every header and size
 * checked before a pointer is laid over the bytes) and writing.
 *
 * The two FP32 formats of llama2.c's export.py:
 *   version 0 (legacy_export): 7 int32 — dim, hidden_dim, n_layers, n_heads, n_kv_heads,
 *     vocab_size, seq_len — where a negative vocab_size means the classifier is untied;
 *     then the tensors, including RoPE's cos/sin table, which readers skip.
 *   version 1 (version1_export): a 256-byte header — uint32 magic "ak42" (0x616b3432),
 *     int32 version, the 7 int32, a uint8 shared-classifier flag, zeros — then the tensors
 *     in another order (weights.c lists both orders). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "weights.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAGIC = 0x616b3432, VERSION0_HEADER_BYTES = 28, VERSION1_HEADER_BYTES = 256 };

/* ----------------------------------------------------------------------------------
 * The header, and the size the header promises */

typedef struct {
    LlamaConfig config;
    int version;
    int64_t header_bytes, file_bytes;
} CheckpointHeader;

static int64_t expected_file_bytes(const CheckpointHeader *h)
{
    return h->header_bytes + 4 * llama_lay_out_tensors(NULL, &h->config, h->version, NULL);
}

static void describe(char *text, size_t size, const LlamaConfig *c)
{
    snprintf(text, size, "dim %d, hidden_dim %d, n_layers %d, n_heads %d, n_kv_heads %d, vocab_size %d, seq_len %d",
             c->dim, c->hidden_dim, c->n_layers, c->n_heads, c->n_kv_heads, c->vocab_size, c->seq_len);
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
    unsigned char bytes[VERSION1_HEADER_BYTES] = {0};
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
        if (h->version == 2) {
            snprintf(error, error_size, "%s is a version-2 checkpoint (runq.c's INT8 export); this engine reads the "
                     "FP32 versions 0 and 1 and quantizes them itself (--weights int8)", path);
            return -1;
        }
        if (h->version != 1) {
            snprintf(error, error_size, "%s has llama2.c's magic number but version %d; versions 0 and 1 are read",
                     path, h->version);
            return -1;
        }
        if (got < VERSION1_HEADER_BYTES) {
            snprintf(error, error_size, "%s is truncated: %lld bytes, shorter than a version-1 header (%d bytes)",
                     path, (long long)got, VERSION1_HEADER_BYTES);
            return -1;
        }
        shape = fields + 2;
        h->header_bytes = VERSION1_HEADER_BYTES;
        h->config.shared_classifier = bytes[36];
    } else {
        h->version = 0;
        shape = fields;
        h->header_bytes = VERSION0_HEADER_BYTES;
        h->config.shared_classifier = shape[5] > 0;
    }
    LlamaConfig *c = &h->config;
    c->dim = shape[0], c->hidden_dim = shape[1], c->n_layers = shape[2], c->n_heads = shape[3];
    c->n_kv_heads = shape[4], c->vocab_size = shape[5], c->seq_len = shape[6];
    if (h->version == 0 && c->vocab_size < 0 && c->vocab_size != INT32_MIN) c->vocab_size = -c->vocab_size;

    char reason[400], shape_text[200];
    if (llama_validate_config(c, reason, sizeof reason) != 0) {
        describe(shape_text, sizeof shape_text, c);
        snprintf(error, error_size, "%s is not a llama2.c checkpoint (version %d header read as %s): %s",
                 path, h->version, shape_text, reason);
        return -1;
    }
    int64_t expected = expected_file_bytes(h);
    if (h->file_bytes != expected) {
        describe(shape_text, sizeof shape_text, c);
        if (h->file_bytes < expected)
            snprintf(error, error_size, "%s is truncated: %lld bytes, but a version-%d checkpoint of its shape (%s, %s "
                     "classifier) needs %lld", path, (long long)h->file_bytes, h->version, shape_text,
                     c->shared_classifier ? "tied" : "untied", (long long)expected);
        else
            snprintf(error, error_size, "%s has %lld bytes, %lld more than a version-%d checkpoint of its shape (%s) "
                     "holds: not a llama2.c checkpoint, or not the shape its header says", path,
                     (long long)h->file_bytes, (long long)(h->file_bytes - expected), h->version, shape_text);
        return -1;
    }
    return 0;
}

int llama_read_checkpoint_config(const char *path, LlamaConfig *config, int *version, char *error, size_t error_size)
{
    CheckpointHeader h;
    if (read_header(path, &h, error, error_size) != 0) return -1;
    *config = h.config;
    if (version) *version = h.version;
    return 0;
}

/* ----------------------------------------------------------------------------------
 * Reading: map the file, lay the tensors over it */

int llama_build_transformer_from_checkpoint(Transformer *t, const char *path, char *error, size_t error_size)
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
    llama_lay_out_tensors(t, &h.config, h.version, (const float *)((const char *)mapping + h.header_bytes));
    return 0;
}

/* ----------------------------------------------------------------------------------
 * Writing */

int llama_write_checkpoint(const Transformer *t, const char *path, int version, char *error, size_t error_size)
{
    const LlamaConfig *c = &t->config;
    if (version != 0 && version != 1) {
        snprintf(error, error_size, "checkpoint version %d cannot be written; versions 0 and 1 can", version);
        return -1;
    }
    if (t->format != WEIGHTS_FP32) {
        snprintf(error, error_size, "an INT8 model cannot be written as an FP32 checkpoint; write it before quantizing");
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
        unsigned char header[VERSION1_HEADER_BYTES] = {0};
        uint32_t magic = MAGIC;
        int32_t version_field = 1;
        memcpy(header, &magic, 4);
        memcpy(header + 4, &version_field, 4);
        memcpy(header + 8, shape, sizeof shape);
        header[36] = (unsigned char)c->shared_classifier;
        ok = fwrite(header, sizeof header, 1, f) == 1;
    }
    for (const int *kind = llama_tensor_order(version); ok && *kind >= 0; kind++) {
        if (!llama_tensor_present(c, *kind)) continue;
        int rows, cols, layers = llama_tensor_is_per_layer(*kind) ? c->n_layers : 1;
        llama_tensor_shape(c, *kind, &rows, &cols);
        for (int layer = 0; ok && layer < layers; layer++)
            ok = fwrite(llama_get_tensor(t, *kind, layer), sizeof(float) * (size_t)cols, (size_t)rows, f) == (size_t)rows;
    }
    if (fclose(f) != 0) ok = 0;
    if (!ok) {
        snprintf(error, error_size, "writing %s failed: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
