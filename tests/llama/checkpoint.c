/* checkpoint.c — llama2.c checkpoint files: write -> read round-trips bit for bit in both
 * versions, tied and untied; a hand-made header is read as llama2.c's export.py writes it;
 * and every bad input is refused with a message that names what is wrong. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "llama.h"
#include "weights.h"

static char error[1024];
static char directory[] = "/tmp/llama-checkpoint-XXXXXX";

static void make_directory(void) { cr_assert(mkdtemp(directory), "mkdtemp failed"); }
static void remove_directory(void)
{
    char command[128];
    snprintf(command, sizeof command, "rm -rf %s", directory);
    cr_assert(system(command) == 0);
}

static const char *path_of(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", directory, name);
    return path;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void write_bytes(const char *path, const void *bytes, size_t size)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f && fwrite(bytes, 1, size, f) == size && fclose(f) == 0, "cannot write %s", path);
}

static void *read_bytes(const char *path, long *size)
{
    *size = file_size(path);
    FILE *f = fopen(path, "rb");
    void *bytes = malloc((size_t)*size + 1);
    cr_assert(f && fread(bytes, 1, (size_t)*size, f) == (size_t)*size && fclose(f) == 0, "cannot read %s", path);
    return bytes;
}

/* ----------------------------------------------------------------------------------
 * Round trips */

static void check_round_trip(int version, int tied)
{
    llama_config c;
    cr_assert(llama_named_shape("tiny", &c, error, sizeof error) == 0, "%s", error);
    c.shared_classifier = tied;
    llama_transformer original, loaded;
    cr_assert(llama_build_transformer_generated(&original, &c, 31, error, sizeof error) == 0, "%s", error);
    const char *first = strdup(path_of("first.bin")), *second = strdup(path_of("second.bin"));
    cr_assert(llama_write_checkpoint(&original, first, version, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_transformer_from_checkpoint(&loaded, first, error, sizeof error) == 0, "%s", error);
    cr_assert(memcmp(&loaded.config, &c, sizeof c) == 0, "version %d, %s: the shape read back differs", version,
              tied ? "tied" : "untied");
    /* version 1's body starts on a cache line and is read in place; version 0's, 28 bytes
     * in, is copied onto one */
    if (version == 0) cr_assert(loaded.mapping == NULL && loaded.fp32_storage != NULL, "a version-0 body is not copied");
    else cr_assert(loaded.mapping != NULL, "the weights are memory-mapped, not copied");
    for (int layer = 0; layer < c.n_layers; layer++)
        cr_assert((uintptr_t)loaded.layers[layer].wq.fp32 % 64 == 0 && (uintptr_t)loaded.layers[layer].w2.fp32 % 64 == 0,
                  "version %d: layer %d's matrices do not start on a cache line", version, layer);
    /* every tensor bit for bit */
    for (int kind = 0; kind < TENSOR_KINDS; kind++) {
        if (!llama_tensor_present(&c, kind) || kind == TENSOR_ROPE_COS || kind == TENSOR_ROPE_SIN) continue;
        int rows, cols;
        llama_tensor_shape(&c, kind, &rows, &cols);
        for (int layer = 0; layer < (llama_tensor_is_per_layer(kind) ? c.n_layers : 1); layer++)
            cr_assert(memcmp(llama_get_tensor(&original, kind, layer), llama_get_tensor(&loaded, kind, layer),
                             (size_t)rows * cols * sizeof(float)) == 0,
                      "version %d: tensor kind %d of layer %d differs after the round trip", version, kind, layer);
    }
    cr_assert(tied == (loaded.classifier.fp32 == loaded.token_embedding.fp32), "the classifier is %s the embedding",
              tied ? "not" : "wrongly");
    /* written again from the mapped copy: the same file, byte for byte */
    cr_assert(llama_write_checkpoint(&loaded, second, version, error, sizeof error) == 0, "%s", error);
    long size1, size2;
    void *a = read_bytes(first, &size1), *b = read_bytes(second, &size2);
    cr_assert(size1 == size2 && memcmp(a, b, (size_t)size1) == 0, "version %d: re-writing the loaded model changes the file", version);
    int64_t floats = (int64_t)(version == 0 ? 28 : 256) / 4 + llama_lay_out_tensors(NULL, &c, version, NULL);
    cr_assert(size1 == 4 * floats, "version %d file: %ld bytes, expected %lld", version, size1, (long long)(4 * floats));
    /* the same logits from the file as from memory */
    llama_session s1, s2;
    cr_assert(llama_build_session(&s1, &original, 1, 8, 1, error, sizeof error) == 0 &&
              llama_build_session(&s2, &loaded, 1, 8, 1, error, sizeof error) == 0, "%s", error);
    int tokens[8] = {1, 5, 9, 2, 60, 7, 3, 95};
    float *x = malloc(c.vocab_size * sizeof(float));
    memcpy(x, llama_prefill(&s1, 0, tokens, 8, error, sizeof error), c.vocab_size * sizeof(float));
    cr_assert(memcmp(x, llama_prefill(&s2, 0, tokens, 8, error, sizeof error), c.vocab_size * sizeof(float)) == 0,
              "version %d: logits from the file differ from the generated model's", version);
    free(x), free(a), free(b), free((void *)first), free((void *)second);
    llama_free_session(&s1), llama_free_session(&s2);
    llama_free_transformer(&original), llama_free_transformer(&loaded);
}

Test(checkpoint, version0_round_trip_untied, .init = make_directory, .fini = remove_directory, .timeout = 20) { check_round_trip(0, 0); }
Test(checkpoint, version0_round_trip_tied, .init = make_directory, .fini = remove_directory, .timeout = 20) { check_round_trip(0, 1); }
Test(checkpoint, version1_round_trip_untied, .init = make_directory, .fini = remove_directory, .timeout = 20) { check_round_trip(1, 0); }
Test(checkpoint, version1_round_trip_tied, .init = make_directory, .fini = remove_directory, .timeout = 20) { check_round_trip(1, 1); }

/* export.py's headers, built here by hand: the reader must see what llama2.c wrote */
Test(checkpoint, headers_are_read_as_llama2c_writes_them, .init = make_directory, .fini = remove_directory, .timeout = 10)
{
    llama_config c;
    cr_assert(llama_named_shape("tiny", &c, error, sizeof error) == 0, "%s", error);
    int64_t body = 4 * llama_lay_out_tensors(NULL, &c, 1, NULL);   /* untied */
    unsigned char *file = calloc(1, 256 + (size_t)body);
    uint32_t magic = 0x616b3432;   /* "ak42" */
    int32_t fields[8] = {1, c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads, c.vocab_size, c.seq_len};
    memcpy(file, &magic, 4);
    memcpy(file + 4, fields, sizeof fields);
    file[36] = 0;   /* shared_classifier */
    write_bytes(path_of("v1.bin"), file, 256 + (size_t)body);
    llama_config read;
    int version;
    cr_assert(llama_read_checkpoint_config(path_of("v1.bin"), &read, &version, error, sizeof error) == 0, "%s", error);
    cr_assert(version == 1 && memcmp(&read, &c, sizeof c) == 0, "version 1 header misread");
    /* version 0: a negative vocab_size means an untied classifier */
    int32_t legacy[7] = {c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads, -c.vocab_size, c.seq_len};
    int64_t legacy_body = 4 * llama_lay_out_tensors(NULL, &c, 0, NULL);
    unsigned char *old = calloc(1, 28 + (size_t)legacy_body);
    memcpy(old, legacy, sizeof legacy);
    write_bytes(path_of("v0.bin"), old, 28 + (size_t)legacy_body);
    cr_assert(llama_read_checkpoint_config(path_of("v0.bin"), &read, &version, error, sizeof error) == 0, "%s", error);
    cr_assert(version == 0 && read.vocab_size == c.vocab_size && read.shared_classifier == 0, "version 0 header misread");
    free(file), free(old);
}

/* export.py's tensor orders, written out here independently of weights.c: a file whose
 * every tensor holds its own marker value must put each marker where it belongs. (A round
 * trip alone cannot tell: a reader and a writer sharing one wrong order agree.) */
typedef struct {
    const char *name;
    int per_layer;
    size_t floats;   /* per layer for per-layer tensors */
} ExportedTensor;

static float marker(int index, int layer) { return (float)(100 * index + layer + 1); }

static void check_export_order(int version)
{
    llama_config c;
    cr_assert(llama_named_shape("tiny", &c, error, sizeof error) == 0, "%s", error);   /* untied */
    size_t dim = c.dim, hidden = c.hidden_dim, kv = (size_t)llama_kv_dim_of(&c), vocab = c.vocab_size, half = llama_head_dim_of(&c) / 2;
    ExportedTensor v0[] = {{"tok_embeddings", 0, vocab * dim}, {"attention_norm", 1, dim}, {"wq", 1, dim * dim},
                           {"wk", 1, kv * dim}, {"wv", 1, kv * dim}, {"wo", 1, dim * dim}, {"ffn_norm", 1, dim},
                           {"w1", 1, hidden * dim}, {"w2", 1, dim * hidden}, {"w3", 1, hidden * dim}, {"norm", 0, dim},
                           {"freqs_cos", 0, c.seq_len * half}, {"freqs_sin", 0, c.seq_len * half}, {"output", 0, vocab * dim}};
    ExportedTensor v1[] = {{"attention_norm", 1, dim}, {"ffn_norm", 1, dim}, {"norm", 0, dim}, {"tok_embeddings", 0, vocab * dim},
                           {"wq", 1, dim * dim}, {"wk", 1, kv * dim}, {"wv", 1, kv * dim}, {"wo", 1, dim * dim},
                           {"w1", 1, hidden * dim}, {"w2", 1, dim * hidden}, {"w3", 1, hidden * dim}, {"output", 0, vocab * dim}};
    ExportedTensor *order = version == 0 ? v0 : v1;
    int count = version == 0 ? 14 : 12;
    size_t header = version == 0 ? 28 : 256, total = 0;
    for (int i = 0; i < count; i++) total += order[i].floats * (order[i].per_layer ? c.n_layers : 1);
    unsigned char *file = calloc(1, header + 4 * total);
    int32_t shape[7] = {c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads, version == 0 ? -c.vocab_size : c.vocab_size, c.seq_len};
    if (version == 0) memcpy(file, shape, sizeof shape);
    else {
        int32_t magic_and_version[2] = {0x616b3432, 1};
        memcpy(file, magic_and_version, 8);
        memcpy(file + 8, shape, sizeof shape);
    }
    float *values = (float *)(file + header);
    for (int i = 0; i < count; i++)
        for (int layer = 0; layer < (order[i].per_layer ? c.n_layers : 1); layer++)
            for (size_t k = 0; k < order[i].floats; k++) *values++ = marker(i, layer);
    write_bytes(path_of("exported.bin"), file, header + 4 * total);
    llama_transformer t;
    cr_assert(llama_build_transformer_from_checkpoint(&t, path_of("exported.bin"), error, sizeof error) == 0, "%s", error);
    for (int i = 0; i < count; i++)
        for (int layer = 0; layer < (order[i].per_layer ? c.n_layers : 1); layer++) {
            const char *name = order[i].name;
            const float *where = NULL;
            const llama_layer_weights *w = &t.layers[layer];
            if (!strcmp(name, "tok_embeddings")) where = t.token_embedding.fp32;
            else if (!strcmp(name, "output")) where = t.classifier.fp32;
            else if (!strcmp(name, "norm")) where = t.rms_final;
            else if (!strcmp(name, "attention_norm")) where = w->rms_attention;
            else if (!strcmp(name, "ffn_norm")) where = w->rms_ffn;
            else if (!strcmp(name, "wq")) where = w->wq.fp32;
            else if (!strcmp(name, "wk")) where = w->wk.fp32;
            else if (!strcmp(name, "wv")) where = w->wv.fp32;
            else if (!strcmp(name, "wo")) where = w->wo.fp32;
            else if (!strcmp(name, "w1")) where = w->w1.fp32;
            else if (!strcmp(name, "w2")) where = w->w2.fp32;
            else if (!strcmp(name, "w3")) where = w->w3.fp32;
            else continue;   /* RoPE's table: skipped by readers */
            cr_assert(where[0] == marker(i, layer) && where[order[i].floats - 1] == marker(i, layer),
                      "version %d: %s of layer %d reads %g, expected its marker %g", version, name, layer, where[0], marker(i, layer));
        }
    llama_free_transformer(&t);
    free(file);
}

Test(checkpoint, version0_tensors_sit_where_export_py_puts_them, .init = make_directory, .fini = remove_directory, .timeout = 10)
{
    check_export_order(0);
}

Test(checkpoint, version1_tensors_sit_where_export_py_puts_them, .init = make_directory, .fini = remove_directory, .timeout = 10)
{
    check_export_order(1);
}

/* ----------------------------------------------------------------------------------
 * Version 2: INT8 as export.py's version2_export writes it and runq.c reads it */

static const int matrix_kinds[] = {TENSOR_EMBEDDING, TENSOR_WQ, TENSOR_WK, TENSOR_WV, TENSOR_WO, TENSOR_W1, TENSOR_W2, TENSOR_W3,
                                   TENSOR_CLASSIFIER};

/* the greedy tokens of a prompt, with FP32 or INT8 activations */
static void greedy_tokens(const llama_transformer *t, int int8_activations, int *out, int n)
{
    llama_session s;
    cr_assert(llama_build_session(&s, t, 1, 8 + n, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_set_int8_activations(&s, int8_activations, error, sizeof error) == 0, "%s", error);
    int prompt[8] = {1, 5, 9, 2, 60, 7, 3, 95};
    const float *logits = llama_prefill(&s, 0, prompt, 8, error, sizeof error);
    for (int k = 0; k < n; k++) {
        cr_assert(logits, "%s", error);
        out[k] = llama_argmax(logits, t->config.vocab_size);
        if (k + 1 < n) logits = llama_decode_batch(&s, (int[]){0}, &out[k], 1, error, sizeof error);
    }
    llama_free_session(&s);
}

static void check_version2_round_trip(int tied)
{
    llama_config c;
    cr_assert(llama_named_shape("tiny", &c, error, sizeof error) == 0, "%s", error);
    c.shared_classifier = tied;
    llama_transformer original, loaded;
    cr_assert(llama_build_transformer_generated(&original, &c, 41, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_quantize_transformer(&original, 8, error, sizeof error) == 0, "%s", error);
    const char *first = strdup(path_of("first.bin")), *second = strdup(path_of("second.bin"));
    cr_assert(llama_write_checkpoint(&original, first, 2, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_transformer_from_checkpoint(&loaded, first, error, sizeof error) == 0, "%s", error);
    cr_assert(memcmp(&loaded.config, &c, sizeof c) == 0, "%s: the shape read back differs", tied ? "tied" : "untied");
    cr_assert(loaded.format == WEIGHTS_INT8 && loaded.group_size == 8 && loaded.mapping != NULL,
              "a version-2 file is read as INT8 in groups of 8, memory-mapped (format %d, group %d)", loaded.format, loaded.group_size);
    cr_assert(loaded.weights_bytes == original.weights_bytes, "weights_bytes %lld, written from %lld",
              (long long)loaded.weights_bytes, (long long)original.weights_bytes);
    /* the values and scales copied out of the file's order (every layer's wq, then every
     * layer's wk, ...) into the one a decode step reads, as a model quantized in memory is */
    int64_t value_at = 0, scale_at = 0;
    llama_tensor_kind kind;
    int layer;
    for (int index = 0; llama_step_matrix(&c, index, &kind, &layer); index++) {
        const llama_weight_matrix *m = llama_matrix_slot(&loaded, kind, layer), *q = llama_matrix_slot(&original, kind, layer);
        cr_assert(m->int8 == loaded.int8_storage + value_at && m->scales == loaded.scale_storage + scale_at,
                  "%s of layer %d: not copied in the order a step reads the matrices, at value %lld of the copy",
                  llama_tensor_name(kind), layer, (long long)value_at);
        cr_assert(m->int8 - loaded.int8_storage == q->int8 - original.int8_storage, "%s of layer %d: at another place than "
                  "in the model quantized in memory", llama_tensor_name(kind), layer);
        value_at += (int64_t)m->rows * m->cols, scale_at += (int64_t)m->rows * m->cols / 8;
    }
    cr_assert(value_at == llama_matrix_parameter_count(&c), "the step's matrices hold %lld values of %lld", (long long)value_at,
              (long long)llama_matrix_parameter_count(&c));
    for (size_t k = 0; k < sizeof matrix_kinds / sizeof matrix_kinds[0]; k++) {
        int kind = matrix_kinds[k], rows, cols;
        if (!llama_tensor_present(&c, kind)) continue;
        llama_tensor_shape(&c, kind, &rows, &cols);
        for (int layer = 0; layer < (llama_tensor_is_per_layer(kind) ? c.n_layers : 1); layer++) {
            const llama_weight_matrix *a = llama_matrix_slot(&original, kind, layer), *b = llama_matrix_slot(&loaded, kind, layer);
            cr_assert(b->format == WEIGHTS_INT8 && b->rows == rows && b->cols == cols && b->group_size == 8, "%s: its matrix",
                      llama_tensor_name(kind));
            cr_assert(memcmp(a->int8, b->int8, (size_t)rows * cols) == 0 &&
                      memcmp(a->scales, b->scales, (size_t)rows * cols / 8 * sizeof(float)) == 0,
                      "%s of layer %d: values or scales differ after the round trip", llama_tensor_name(kind), layer);
        }
    }
    for (int layer = 0; layer < c.n_layers; layer++)
        cr_assert(memcmp(original.layers[layer].rms_attention, loaded.layers[layer].rms_attention, c.dim * sizeof(float)) == 0 &&
                  memcmp(original.layers[layer].rms_ffn, loaded.layers[layer].rms_ffn, c.dim * sizeof(float)) == 0,
                  "the norms of layer %d differ", layer);
    cr_assert(memcmp(original.rms_final, loaded.rms_final, c.dim * sizeof(float)) == 0, "the final norm differs");
    cr_assert(tied == (loaded.classifier.int8 == loaded.token_embedding.int8), "the classifier is %s the embedding",
              tied ? "not" : "wrongly");
    /* written again from the loaded model: the same bytes */
    cr_assert(llama_write_checkpoint(&loaded, second, 2, error, sizeof error) == 0, "%s", error);
    long size1, size2;
    void *a = read_bytes(first, &size1), *b = read_bytes(second, &size2);
    cr_assert(size1 == size2 && memcmp(a, b, (size_t)size1) == 0, "re-writing the loaded version-2 model changes the file");
    cr_assert(size1 == 256 + llama_weights_bytes_of(&c, WEIGHTS_INT8, 8), "version-2 file: %ld bytes, expected %lld", size1,
              (long long)(256 + llama_weights_bytes_of(&c, WEIGHTS_INT8, 8)));
    /* the same greedy tokens from the file as from memory, with either kind of activations */
    for (int int8_activations = 0; int8_activations <= 1; int8_activations++) {
        int from_memory[24], from_file[24];
        greedy_tokens(&original, int8_activations, from_memory, 24);
        greedy_tokens(&loaded, int8_activations, from_file, 24);
        cr_assert(memcmp(from_memory, from_file, sizeof from_file) == 0, "%s activations: the file generates other tokens",
                  int8_activations ? "INT8" : "FP32");
    }
    free(a), free(b), free((void *)first), free((void *)second);
    llama_free_transformer(&original), llama_free_transformer(&loaded);
}

Test(checkpoint, version2_round_trip_untied, .init = make_directory, .fini = remove_directory, .timeout = 20) { check_version2_round_trip(0); }
Test(checkpoint, version2_round_trip_tied, .init = make_directory, .fini = remove_directory, .timeout = 20) { check_version2_round_trip(1); }

/* runq.c's memory_map_weights, written out here independently of checkpoint.c: the header's
 * group size at byte 37; the norms in FP32 (all attention norms, all MLP norms, the final
 * norm); then per matrix and layer, in export.py's order, its INT8 values and then its
 * scales. Every tensor holds its own marker. */
Test(checkpoint, version2_tensors_sit_where_runq_reads_them, .init = make_directory, .fini = remove_directory, .timeout = 10)
{
    llama_config c;
    cr_assert(llama_named_shape("tiny", &c, error, sizeof error) == 0, "%s", error);   /* untied */
    enum { GROUP = 16 };
    size_t dim = c.dim, hidden = c.hidden_dim, kv = (size_t)llama_kv_dim_of(&c), vocab = c.vocab_size, layers = c.n_layers;
    struct { const char *name; size_t layers, count; } order[] = {
        {"tok_embeddings", 1, vocab * dim}, {"wq", layers, dim * dim}, {"wk", layers, kv * dim}, {"wv", layers, kv * dim},
        {"wo", layers, dim * dim}, {"w1", layers, hidden * dim}, {"w2", layers, dim * hidden}, {"w3", layers, hidden * dim},
        {"output", 1, vocab * dim}};
    size_t bytes = 256 + 4 * (2 * layers + 1) * dim;
    for (int i = 0; i < 9; i++) bytes += order[i].layers * (order[i].count + 4 * order[i].count / GROUP);
    unsigned char *file = calloc(1, bytes);
    int32_t head[9] = {0x616b3432, 2, c.dim, c.hidden_dim, c.n_layers, c.n_heads, c.n_kv_heads, c.vocab_size, c.seq_len};
    int32_t group = GROUP;
    memcpy(file, head, sizeof head);
    file[36] = 0;                    /* shared_classifier */
    memcpy(file + 37, &group, 4);    /* unaligned, as export.py's struct.pack('i') after a 'B' puts it */
    unsigned char *at = file + 256;
    for (size_t norm = 0; norm < 2 * layers + 1; norm++)
        for (size_t k = 0; k < dim; k++, at += 4) memcpy(at, &(float){(float)(norm + 1)}, 4);
    for (int i = 0; i < 9; i++)
        for (size_t layer = 0; layer < order[i].layers; layer++) {
            memset(at, 10 * i + (int)layer + 1, order[i].count);
            at += order[i].count;
            for (size_t k = 0; k < order[i].count / GROUP; k++, at += 4) memcpy(at, &(float){0.5f * (float)(10 * i + layer + 1)}, 4);
        }
    cr_assert((size_t)(at - file) == bytes);
    write_bytes(path_of("runq.bin"), file, bytes);
    llama_transformer t;
    cr_assert(llama_build_transformer_from_checkpoint(&t, path_of("runq.bin"), error, sizeof error) == 0, "%s", error);
    cr_assert(t.format == WEIGHTS_INT8 && t.group_size == GROUP, "format %d, group size %d", t.format, t.group_size);
    for (int layer = 0; layer < c.n_layers; layer++) {
        cr_assert(t.layers[layer].rms_attention[0] == layer + 1 && t.layers[layer].rms_attention[dim - 1] == layer + 1,
                  "attention_norm of layer %d", layer);
        cr_assert(t.layers[layer].rms_ffn[0] == c.n_layers + layer + 1, "ffn_norm of layer %d", layer);
    }
    cr_assert(t.rms_final[0] == 2 * c.n_layers + 1 && t.rms_final[dim - 1] == 2 * c.n_layers + 1, "the final norm");
    for (int i = 0; i < 9; i++)
        for (size_t layer = 0; layer < order[i].layers; layer++) {
            const llama_weight_matrix *m = &t.token_embedding;
            const llama_layer_weights *w = &t.layers[layer];
            const char *name = order[i].name;
            if (!strcmp(name, "output")) m = &t.classifier;
            else if (!strcmp(name, "wq")) m = &w->wq;
            else if (!strcmp(name, "wk")) m = &w->wk;
            else if (!strcmp(name, "wv")) m = &w->wv;
            else if (!strcmp(name, "wo")) m = &w->wo;
            else if (!strcmp(name, "w1")) m = &w->w1;
            else if (!strcmp(name, "w2")) m = &w->w2;
            else if (!strcmp(name, "w3")) m = &w->w3;
            int marker = 10 * i + (int)layer + 1;
            size_t groups = order[i].count / GROUP;
            cr_assert(m->int8[0] == marker && m->int8[order[i].count - 1] == marker, "%s of layer %zu: values %d, expected %d",
                      name, layer, m->int8[0], marker);
            cr_assert(m->scales[0] == 0.5f * marker && m->scales[groups - 1] == 0.5f * marker, "%s of layer %zu: scales %g",
                      name, layer, m->scales[0]);
        }
    llama_free_transformer(&t);
    free(file);
}

/* ----------------------------------------------------------------------------------
 * Bad input: refused, with a message naming what is wrong */

static void expect_weights_refused(const char *path, const char *message)
{
    llama_transformer t;
    error[0] = 0;
    cr_assert(llama_build_transformer_from_checkpoint(&t, path, error, sizeof error) != 0, "%s was accepted", path);
    cr_assert(strstr(error, message), "refusing %s, the message should say '%s'; it says: %s", path, message, error);
}

/* refused by the loader, and its header by llama_read_checkpoint_config too */
static void expect_refusal(const char *path, const char *message)
{
    expect_weights_refused(path, message);
    llama_config c;
    cr_assert(llama_read_checkpoint_config(path, &c, NULL, error, sizeof error) != 0, "%s: its header was accepted", path);
}

static void write_shape(const char *name, int32_t dim, int32_t hidden, int32_t layers, int32_t heads, int32_t kv_heads,
                        int32_t vocab, int32_t seq_len)
{
    int32_t header[7] = {dim, hidden, layers, heads, kv_heads, vocab, seq_len};
    write_bytes(path_of(name), header, sizeof header);
}

Test(checkpoint, bad_files_are_refused_with_their_reason, .init = make_directory, .fini = remove_directory, .timeout = 20)
{
    expect_refusal(path_of("missing.bin"), "cannot open");
    expect_refusal(directory, "is a directory");
    write_bytes(path_of("empty.bin"), "", 0);
    expect_refusal(path_of("empty.bin"), "truncated");
    const char *text = "Once upon a time there was a tiny llama who read the wrong file and found words.\n";
    write_bytes(path_of("story.txt"), text, strlen(text));
    expect_refusal(path_of("story.txt"), "not a llama2.c checkpoint");

    /* a good file, then the same cut short and with bytes added */
    llama_config c;
    cr_assert(llama_named_shape("tiny", &c, error, sizeof error) == 0, "%s", error);
    llama_transformer t;
    cr_assert(llama_build_transformer_generated(&t, &c, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_write_checkpoint(&t, path_of("good.bin"), 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_write_checkpoint(&t, path_of("good0.bin"), 0, error, sizeof error) == 0, "%s", error);
    long size;
    unsigned char *bytes = read_bytes(path_of("good.bin"), &size);
    write_bytes(path_of("short.bin"), bytes, (size_t)size - 1);
    expect_refusal(path_of("short.bin"), "is truncated");
    write_bytes(path_of("header-only.bin"), bytes, 100);
    expect_refusal(path_of("header-only.bin"), "truncated");
    unsigned char *longer = calloc(1, (size_t)size + 4);
    memcpy(longer, bytes, (size_t)size);
    write_bytes(path_of("long.bin"), longer, (size_t)size + 4);
    expect_refusal(path_of("long.bin"), "4 more than");
    long size0;
    unsigned char *bytes0 = read_bytes(path_of("good0.bin"), &size0);
    write_bytes(path_of("short0.bin"), bytes0, (size_t)size0 / 2);
    expect_refusal(path_of("short0.bin"), "is truncated");

    /* other versions of the format: a version-1 file relabelled 2 has no group size */
    int32_t version2[2] = {0x616b3432, 2}, version7[2] = {0x616b3432, 7};
    memcpy(bytes, version2, sizeof version2);
    write_bytes(path_of("v2.bin"), bytes, (size_t)size);
    expect_refusal(path_of("v2.bin"), "its version-2 header is inconsistent: group size 0");
    memcpy(bytes, version7, sizeof version7);
    write_bytes(path_of("v7.bin"), bytes, (size_t)size);
    expect_refusal(path_of("v7.bin"), "version 7");

    /* impossible dimensions in a legacy header */
    write_shape("heads.bin", 48, 112, 2, 5, 5, 96, 40);
    expect_refusal(path_of("heads.bin"), "dim 48 is not a multiple of n_heads 5");
    write_shape("groups.bin", 48, 112, 2, 6, 4, 96, 40);
    expect_refusal(path_of("groups.bin"), "n_kv_heads 4 does not divide n_heads 6");
    write_shape("odd.bin", 45, 112, 2, 5, 5, 96, 40);
    expect_refusal(path_of("odd.bin"), "head_dim 9");
    write_shape("layers.bin", 48, 112, 0, 6, 2, 96, 40);
    expect_refusal(path_of("layers.bin"), "n_layers = 0");
    write_shape("negative.bin", 48, -112, 2, 6, 2, 96, 40);
    expect_refusal(path_of("negative.bin"), "hidden_dim = -112");
    write_shape("huge.bin", 48, 112, 2, 6, 2, 96, 1 << 30);
    expect_refusal(path_of("huge.bin"), "seq_len");
    free(bytes), free(bytes0), free(longer);
    llama_free_transformer(&t);
}

Test(checkpoint, impossible_shapes_and_formats_are_refused, .timeout = 10)
{
    llama_config c = {.dim = 48, .hidden_dim = 112, .n_layers = 2, .n_heads = 6, .n_kv_heads = 12, .vocab_size = 96, .seq_len = 40};
    llama_transformer t;
    cr_assert(llama_build_transformer_generated(&t, &c, 1, error, sizeof error) != 0 && strstr(error, "n_kv_heads 12 does not divide"),
              "more KV heads than heads: %s", error);
    cr_assert(llama_named_shape("7B", &c, error, sizeof error) != 0 && strstr(error, "15M, 42M, 110M"), "unknown shape: %s", error);
    cr_assert(llama_named_shape("tiny", &c, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_transformer_generated(&t, &c, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_write_checkpoint(&t, "/nonexistent-directory/x.bin", 1, error, sizeof error) != 0 && strstr(error, "cannot create"),
              "an unwritable path: %s", error);
    cr_assert(llama_write_checkpoint(&t, "/tmp/x.bin", 3, error, sizeof error) != 0 && strstr(error, "version 3 cannot be written"),
              "%s", error);
    cr_assert(llama_write_checkpoint(&t, "/tmp/x.bin", 2, error, sizeof error) != 0 &&
              strstr(error, "version-2 checkpoint holds INT8 weights, and this model is FP32"), "%s", error);
    cr_assert(llama_quantize_transformer(&t, 16, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_write_checkpoint(&t, "/tmp/x.bin", 1, error, sizeof error) != 0 && strstr(error, "INT8 model is written as version 2"),
              "%s", error);
    llama_free_transformer(&t);
}

/* Sessions and calls that cannot be served are refused the same way */
Test(checkpoint, requests_that_do_not_fit_are_refused, .timeout = 10)
{
    llama_config c;
    cr_assert(llama_named_shape("tiny", &c, error, sizeof error) == 0, "%s", error);
    llama_transformer t;
    cr_assert(llama_build_transformer_generated(&t, &c, 1, error, sizeof error) == 0, "%s", error);
    llama_session s;
    cr_assert(llama_build_session(&s, &t, 1, c.seq_len + 1, 1, error, sizeof error) != 0 && strstr(error, "seq_len is 40"),
              "a context longer than seq_len: %s", error);
    cr_assert(llama_build_session(&s, &t, 1 << 28, c.seq_len, 1, error, sizeof error) != 0 && strstr(error, "does not fit"),
              "a batch whose KV cache exceeds the machine's memory: %s", error);
    cr_assert(llama_build_session(&s, &t, 0, 8, 1, error, sizeof error) != 0 && strstr(error, "batch >= 1"), "batch 0: %s", error);
    cr_assert(llama_build_session(&s, &t, 2, 8, 1, error, sizeof error) == 0, "%s", error);
    int tokens[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, bad[1] = {96};
    cr_assert(!llama_prefill(&s, 0, tokens, 9, error, sizeof error) && strstr(error, "would hold 9 tokens"), "%s", error);
    cr_assert(!llama_prefill(&s, 2, tokens, 1, error, sizeof error) && strstr(error, "sequence 2 does not exist"), "%s", error);
    cr_assert(!llama_prefill(&s, 0, bad, 1, error, sizeof error) && strstr(error, "outside the vocabulary"), "%s", error);
    cr_assert(!llama_decode_batch(&s, (int[]){1, 1}, tokens, 2, error, sizeof error) && strstr(error, "appears twice"), "%s", error);
    cr_assert(!llama_decode_batch(&s, (int[]){0, 1}, tokens, 3, error, sizeof error) && strstr(error, "holds 1 to 2"), "%s", error);
    cr_assert(s.cache.length[0] == 0 && s.cache.length[1] == 0, "a refused call must not change the cache");
    cr_assert(llama_prefill(&s, 0, tokens, 8, error, sizeof error), "%s", error);
    cr_assert(!llama_decode_batch(&s, (int[]){0}, tokens, 1, error, sizeof error) && strstr(error, "would hold 9"), "a full sequence: %s", error);
    llama_reset_sequence(&s, 0);
    cr_assert(llama_decode_batch(&s, (int[]){0}, tokens, 1, error, sizeof error) && s.cache.length[0] == 1, "after a reset: %s", error);
    llama_free_session(&s);
    llama_free_transformer(&t);
}

/* A value no trained model holds — NaN, an infinity, 1e30 — is refused, naming the tensor */
static void patch_float(const char *from, const char *to, long offset, float value)   /* names in the directory */
{
    long size;
    unsigned char *bytes = read_bytes(path_of(from), &size);
    cr_assert(offset >= 0 && offset + 4 <= size);
    memcpy(bytes + offset, &value, 4);
    write_bytes(path_of(to), bytes, (size_t)size);
    free(bytes);
}

Test(checkpoint, non_finite_and_huge_weights_are_refused, .init = make_directory, .fini = remove_directory, .timeout = 20)
{
    llama_config c;
    cr_assert(llama_named_shape("tiny", &c, error, sizeof error) == 0, "%s", error);
    llama_transformer t, mapped;
    cr_assert(llama_build_transformer_generated(&t, &c, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_write_checkpoint(&t, path_of("good.bin"), 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_build_transformer_from_checkpoint(&mapped, path_of("good.bin"), error, sizeof error) == 0, "%s", error);
    long w2 = (long)((const char *)mapped.layers[1].w2.fp32 - (const char *)mapped.mapping) + 4 * 17;
    long norm = (long)((const char *)mapped.layers[0].rms_ffn - (const char *)mapped.mapping);
    llama_free_transformer(&mapped);
    const struct { long offset; float value; const char *says; } cases[] = {
        {w2, NAN, "w2 of layer 1 holds NaN, not a number at index 17"},
        {w2, INFINITY, "w2 of layer 1 holds an infinity at index 17"},
        {w2, -1e30f, "w2 of layer 1 holds -1e+30, beyond the bound |w| <= 10000"},
        {norm, 2e4f, "ffn_norm of layer 0 holds 20000, beyond the bound"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        patch_float("good.bin", "bad.bin", cases[i].offset, cases[i].value);
        expect_weights_refused(path_of("bad.bin"), cases[i].says);
    }
    patch_float("good.bin", "large.bin", w2, 9999.0f);   /* within the bound: accepted */
    cr_assert(llama_build_transformer_from_checkpoint(&mapped, path_of("large.bin"), error, sizeof error) == 0, "%s", error);
    llama_free_transformer(&mapped);

    /* version 2: the scales are checked (127 x scale is the group's largest weight) */
    cr_assert(llama_quantize_transformer(&t, 16, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_write_checkpoint(&t, path_of("good2.bin"), 2, error, sizeof error) == 0, "%s", error);
    /* the reader copies the values out of the file: find the first wq's in it, its scales follow */
    long size2;
    unsigned char *file2 = read_bytes(path_of("good2.bin"), &size2);
    const unsigned char *wq = memmem(file2, (size_t)size2, t.layers[0].wq.int8, (size_t)c.dim * c.dim);
    cr_assert(wq != NULL, "the first layer's wq is not in the version-2 file");
    long wq_scales = (long)(wq - file2) + (long)c.dim * c.dim;
    free(file2);
    patch_float("good2.bin", "bad2.bin", wq_scales, NAN);
    expect_weights_refused(path_of("bad2.bin"), "wq of layer 0 (its INT8 scales) holds NaN");
    patch_float("good2.bin", "bad2.bin", wq_scales, -0.5f);
    expect_weights_refused(path_of("bad2.bin"), "a negative scale");
    patch_float("good2.bin", "bad2.bin", wq_scales, 1e30f);
    expect_weights_refused(path_of("bad2.bin"), "(its INT8 scales) holds a scale of 1e+30, for weights up to 1.27e+32, beyond the bound");
    llama_free_transformer(&t);
}

/* A header that disagrees with its tensors is reported as that, with the sizes; a version-2
 * group size that splits rows is refused naming the dimension */
Test(checkpoint, inconsistent_headers_say_what_disagrees, .init = make_directory, .fini = remove_directory, .timeout = 20)
{
    llama_config c;
    cr_assert(llama_named_shape("tiny", &c, error, sizeof error) == 0, "%s", error);
    llama_transformer t;
    cr_assert(llama_build_transformer_generated(&t, &c, 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_write_checkpoint(&t, path_of("good.bin"), 1, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_write_checkpoint(&t, path_of("good0.bin"), 0, error, sizeof error) == 0, "%s", error);
    long size;
    unsigned char *bytes = read_bytes(path_of("good.bin"), &size);
    int32_t vocab = c.vocab_size + 1;   /* like 32001 over the tensors of 32000 tokens */
    memcpy(bytes + 28, &vocab, 4);
    write_bytes(path_of("vocab.bin"), bytes, (size_t)size);
    char says[200];
    snprintf(says, sizeof says, "has %lld bytes, this file has %ld, which is exactly the size for vocab_size %d: the header's vocab_size %d is wrong",
             (long long)(size + 2 * 4 * c.dim), size, c.vocab_size, vocab);
    expect_refusal(path_of("vocab.bin"), says);
    free(bytes);
    bytes = read_bytes(path_of("good0.bin"), &size);
    int32_t untied_vocab = -(c.vocab_size + 1);
    memcpy(bytes + 20, &untied_vocab, 4);
    write_bytes(path_of("vocab0.bin"), bytes, (size_t)size);
    expect_refusal(path_of("vocab0.bin"), "exactly the size for vocab_size 96");
    int32_t tied_vocab = c.vocab_size;   /* positive: tied, but the file holds an untied classifier */
    memcpy(bytes + 20, &tied_vocab, 4);
    write_bytes(path_of("tied0.bin"), bytes, (size_t)size);
    expect_refusal(path_of("tied0.bin"), "the header says the classifier is tied, but the file's size");
    free(bytes);

    cr_assert(llama_quantize_transformer(&t, 16, error, sizeof error) == 0, "%s", error);
    cr_assert(llama_write_checkpoint(&t, path_of("good2.bin"), 2, error, sizeof error) == 0, "%s", error);
    bytes = read_bytes(path_of("good2.bin"), &size);
    int32_t group = 7;
    memcpy(bytes + 37, &group, 4);
    write_bytes(path_of("group7.bin"), bytes, (size_t)size);
    expect_refusal(path_of("group7.bin"), "its version-2 header is inconsistent: group size 7 does not divide dim 48");
    group = 32;   /* divides dim 48? no: 48 = 16 x 3 */
    memcpy(bytes + 37, &group, 4);
    write_bytes(path_of("group32.bin"), bytes, (size_t)size);
    expect_refusal(path_of("group32.bin"), "group size 32 does not divide dim 48");
    group = 8;    /* divides both, but the file holds groups of 16: its size says so */
    memcpy(bytes + 37, &group, 4);
    write_bytes(path_of("group8.bin"), bytes, (size_t)size);
    expect_refusal(path_of("group8.bin"), "is truncated");
    free(bytes);
    llama_free_transformer(&t);
}
