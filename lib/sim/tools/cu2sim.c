/* cu2sim.c — rewrites a .cu file so that a C++ compiler can run it on the simulator.
 *
 *   cu2sim input.cu [included-file ...] > output.cpp
 *
 * lib/sim/tools/simcc runs it on each .cu file and on every header of the program's own that
 * one includes, giving it the files the input includes too: a template kernel declared in any
 * of them is known at a launch in the input (see find_template_kernels).
 *
 * Two constructs of CUDA C are not C++, and this program rewrites exactly those, leaving
 * every other character (and every line number) where it was:
 *
 *   kernel<<<grid, block, smem, stream>>>(args);
 *     -> sim::launcher(kernel, "kernel", __FILE__, __LINE__, grid, block, smem, stream)(args);
 *
 *   __shared__ float tile[32][33];            (inside a function)
 *     -> static char sim_shared_key_tile; using sim_shared_type_tile = float[32][33];
 *        sim_shared_type_tile &tile = *static_cast<...>(sim_shared_static(&key, size, align));
 *
 *   extern __shared__ float buffer[];         (inside a function)
 *     -> float *buffer = static_cast<float *>(sim_shared_dynamic());
 *
 *   __global__ void scale(float *x, int n) { ... }
 *     -> the same, then SIM_LIST_KERNEL(scale, 12) after its closing brace: an entry in the
 *        program's list of kernels, for cudaLaunchKernel((void *)scale, ...)
 *
 * At file scope, shared variables become sim::static_shared / sim::dynamic_shared
 * objects that find the running block's storage on each use. Comments, strings and
 * character literals are never rewritten. The output starts with a #line directive, so
 * the compiler's messages and __FILE__/__LINE__ name the original file. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *input_path;
static char *text;          /* the whole input */
static char *is_code;       /* is_code[i]: text[i] is not inside a comment or a literal */
static size_t length;

/* ---------------------------------------------------------------------------------
 * Reading and classifying the input */

static int line_of(size_t position)
{
    int line = 1;
    for (size_t i = 0; i < position && i < length; i++) line += text[i] == '\n';
    return line;
}

static void fail(size_t position, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "%s:%d: error: ", input_path, line_of(position));
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(EXIT_FAILURE);
}

/* cu2sim's memory: a size, or the program ends with the reason (it is a tool: nothing to return to). */
static void *resize_or_exit(void *p, size_t bytes)
{
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q) {
        fprintf(stderr, "cu2sim: out of memory (%zu bytes)\n", bytes);
        exit(EXIT_FAILURE);
    }
    return q;
}

static void read_input(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(EXIT_FAILURE); }
    size_t capacity = 1 << 16;
    input_path = path;
    length = 0;
    free(text);
    text = resize_or_exit(NULL, capacity + 1);
    for (size_t n; (n = fread(text + length, 1, capacity - length, f)) > 0;) {
        length += n;
        if (length == capacity) text = resize_or_exit(text, (capacity *= 2) + 1);
    }
    fclose(f);
    text[length] = 0;
}

static void classify(void)
{
    free(is_code);
    is_code = memset(resize_or_exit(NULL, length + 1), 0, length + 1);
    for (size_t i = 0; i < length;) {
        if (text[i] == '/' && text[i + 1] == '/') {
            while (i < length && text[i] != '\n') i++;
        } else if (text[i] == '/' && text[i + 1] == '*') {
            char *end = strstr(text + i + 2, "*/");
            i = end ? (size_t)(end - text) + 2 : length;
        } else if (text[i] == '"' || text[i] == '\'') {
            char quote = text[i++];
            while (i < length && text[i] != quote && text[i] != '\n') i += text[i] == '\\' ? 2 : 1;
            i++;
        } else {
            is_code[i++] = 1;
        }
    }
}

static int is_identifier_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

static int word_at(size_t i, const char *word)
{
    size_t n = strlen(word);
    return i + n <= length && is_code[i] && strncmp(text + i, word, n) == 0 &&
           (i == 0 || !is_identifier_char(text[i - 1])) && !is_identifier_char(text[i + n]);
}

static size_t skip_space_back(size_t i)   /* i: one past; returns one past the last non-space */
{
    while (i > 0 && (isspace((unsigned char)text[i - 1]) || !is_code[i - 1])) i--;
    return i;
}

/* ---------------------------------------------------------------------------------
 * Edits, applied in order of position at the end */

typedef struct edit { size_t at, remove; char *insert; } edit;
static edit *edits;
static size_t edit_count, edit_capacity;

static void add_edit(size_t at, size_t remove, const char *format, ...)
{
    if (edit_count == edit_capacity) edits = resize_or_exit(edits, (edit_capacity = edit_capacity * 2 + 16) * sizeof *edits);
    va_list args;
    va_start(args, format);
    char *s = NULL;
    if (vasprintf(&s, format, args) < 0) exit(EXIT_FAILURE);
    va_end(args);
    edits[edit_count++] = (edit){at, remove, s};
}

static int by_position(const void *a, const void *b)
{
    const edit *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at;
}

static void write_output(void)
{
    qsort(edits, edit_count, sizeof *edits, by_position);
    printf("#line 1 \"%s\"\n", input_path);
    size_t at = 0;
    for (size_t e = 0; e < edit_count; e++) {
        fwrite(text + at, 1, edits[e].at - at, stdout);
        fputs(edits[e].insert, stdout);
        at = edits[e].at + edits[e].remove;
    }
    fwrite(text + at, 1, length - at, stdout);
}

/* ---------------------------------------------------------------------------------
 * Launches */

/* Names of kernels declared as templates in this file or the files it includes: nvcc deduces
 * their template arguments from a launch's arguments, the simulator's launcher cannot. */
static char template_kernels[64][128];
static int template_kernel_count;

static int is_template_kernel(const char *name)
{
    for (int k = 0; k < template_kernel_count; k++)
        if (strcmp(name, template_kernels[k]) == 0) return 1;
    return 0;
}

static void find_template_kernels(void)
{
    for (size_t i = 0; i < length; i++) {
        if (!word_at(i, "template")) continue;
        size_t j = i + strlen("template");
        while (j < length && isspace((unsigned char)text[j])) j++;
        if (text[j] != '<') continue;
        int depth = 0;
        do {
            if (text[j] == '<') depth++;
            if (text[j] == '>') depth--;
            j++;
        } while (j < length && depth > 0);
        size_t paren = j;
        while (paren < length && text[paren] != '(' && text[paren] != ';' && text[paren] != '{') paren++;
        if (paren == length || text[paren] != '(') continue;
        int is_kernel = 0;
        for (size_t k = j; k + 10 <= paren; k++) is_kernel |= word_at(k, "__global__");
        size_t end = skip_space_back(paren), start = end;
        while (start > j && is_identifier_char(text[start - 1])) start--;
        char name[128];
        if (!is_kernel || end == start || end - start >= sizeof name) continue;
        memcpy(name, text + start, end - start);
        name[end - start] = 0;
        if (!is_template_kernel(name) && template_kernel_count < 64) strcpy(template_kernels[template_kernel_count++], name);
    }
}

/* The start of the kernel expression that ends just before `end`: an identifier,
 * possibly qualified (a::b) and possibly with template arguments (k<float, 4>). */
static size_t kernel_expression_start(size_t end)
{
    size_t i = skip_space_back(end);
    for (;;) {
        if (i > 0 && text[i - 1] == '>') {            /* template arguments */
            int depth = 0;
            do {
                i--;
                if (text[i] == '>') depth++;
                if (text[i] == '<') depth--;
            } while (i > 0 && depth > 0);
            i = skip_space_back(i);
        }
        size_t identifier_end = i;
        while (i > 0 && is_identifier_char(text[i - 1])) i--;
        if (i == identifier_end) fail(end, "cannot find the kernel's name before <<<");
        size_t before = skip_space_back(i);
        if (before >= 2 && text[before - 1] == ':' && text[before - 2] == ':') i = skip_space_back(before - 2);
        else return i;
    }
}

static void rewrite_launch(size_t open)
{
    size_t start = kernel_expression_start(open);
    int depth = 0;
    size_t close = open + 3;
    for (; close + 2 < length; close++) {
        if (!is_code[close]) continue;
        char c = text[close];
        if (c == '(' || c == '[' || c == '{') depth++;
        else if (c == ')' || c == ']' || c == '}') depth--;
        else if (depth == 0 && strncmp(text + close, ">>>", 3) == 0) break;
        if (depth < 0) fail(open, "unbalanced brackets in the launch configuration");
    }
    if (close + 2 >= length) fail(open, "a kernel launch <<< without its closing >>>");

    char name[256];
    size_t n = 0;
    for (size_t i = start; i < open && n < sizeof name - 1; i++)
        if (!isspace((unsigned char)text[i])) name[n++] = text[i];
    name[n] = 0;
    if (is_template_kernel(name))
        fail(start, "launching the template kernel %s needs its template arguments spelled out on the simulator,\n"
             "    e.g. %s<float><<<...>>>(...): nvcc deduces them from the arguments, lib/sim/tools/simcc cannot", name, name);
    add_edit(start, 0, "sim::launcher(");
    add_edit(open, 3, ", \"%s\", __FILE__, __LINE__, ", name);
    add_edit(close, 3, ")");
}

/* ---------------------------------------------------------------------------------
 * Kernels, listed for cudaLaunchKernel */

/* The position of the bracket that closes the one at `open` ((, [ or {), or `length`. */
static size_t matching_close(size_t open)
{
    int depth = 0;
    for (size_t i = open; i < length; i++) {
        if (!is_code[i]) continue;
        if (text[i] == '(' || text[i] == '[' || text[i] == '{') depth++;
        else if ((text[i] == ')' || text[i] == ']' || text[i] == '}') && --depth == 0) return i;
    }
    return length;
}

/* After each kernel this file defines, SIM_LIST_KERNEL(name, line): templates are left out (an
 * entry needs one function) and so are names defined twice here (overloads, or #if branches). */
static void list_kernels(void)
{
    enum { MOST = 512 };
    static char names[MOST][128];
    static size_t ends[MOST];
    int count = 0;
    for (size_t i = 0; i < length && count < MOST; i++) {
        if (!word_at(i, "__global__")) continue;
        size_t j = i + strlen("__global__"), start = 0, end = 0;
        for (;;) {   /* the parameter list's '(', past any __launch_bounds__(...) */
            while (j < length && !(is_code[j] && strchr("(;{}", text[j]))) j++;
            if (j == length || text[j] != '(') break;
            end = skip_space_back(j), start = end;
            while (start > i && is_identifier_char(text[start - 1])) start--;
            if (end - start != strlen("__launch_bounds__") || strncmp(text + start, "__launch_bounds__", end - start)) break;
            j = matching_close(j) + 1;
            start = end = 0;
        }
        if (j == length || text[j] != '(' || end == start || end - start >= sizeof names[0]) continue;
        if (start >= 1 && text[start - 1] == ':') continue;   /* a qualified name: defined out of its namespace */
        size_t body = matching_close(j) + 1;
        while (body < length && (isspace((unsigned char)text[body]) || !is_code[body])) body++;
        if (body >= length || text[body] != '{') continue;   /* a declaration */
        memcpy(names[count], text + start, end - start);
        names[count][end - start] = 0;
        if (is_template_kernel(names[count])) continue;
        ends[count++] = matching_close(body);
        i = body;
    }
    for (int k = 0; k < count; k++) {
        int defined = 0;
        for (int m = 0; m < count; m++) defined += strcmp(names[k], names[m]) == 0;
        if (defined == 1 && ends[k] < length) add_edit(ends[k] + 1, 0, " SIM_LIST_KERNEL(%s, %d)", names[k], line_of(ends[k]));
    }
}

/* ---------------------------------------------------------------------------------
 * __shared__ declarations */

static char *trimmed_copy(const char *from, size_t n)
{
    while (n > 0 && isspace((unsigned char)*from)) from++, n--;
    while (n > 0 && isspace((unsigned char)from[n - 1])) n--;
    char *s = resize_or_exit(NULL, n + 1);
    memcpy(s, from, n);
    s[n] = 0;
    return s;
}

/* Removes every __align__(...) from s: shared storage is always 16-byte aligned here. */
static void remove_align(char *s)
{
    for (char *a; (a = strstr(s, "__align__"));) {
        char *p = a + strlen("__align__");
        int depth = 0;
        do {
            if (*p == '(') depth++;
            if (*p == ')') depth--;
            p++;
        } while (*p && depth > 0);
        memmove(a, p, strlen(p) + 1);
    }
}

typedef struct declarator { char *name, *dimensions, *pointers; } declarator;

/* Splits "*name[4][8]" into its parts. */
static declarator parse_declarator(size_t where, char *d)
{
    declarator out;
    char *bracket = strchr(d, '[');
    char *end = bracket ? bracket : d + strlen(d);
    while (end > d && isspace((unsigned char)end[-1])) end--;
    char *name = end;
    while (name > d && is_identifier_char(name[-1])) name--;
    if (name == end) fail(where, "cannot find the variable's name in this __shared__ declaration");
    if (strchr(d, '=')) fail(where, "a __shared__ variable cannot have an initializer: assign it in the kernel");
    out.pointers = trimmed_copy(d, (size_t)(name - d));
    out.name = trimmed_copy(name, (size_t)(end - name));
    out.dimensions = bracket ? trimmed_copy(bracket, strlen(bracket)) : trimmed_copy("", 0);
    return out;
}

/* Is the brace at `open` the start of a function body or a block inside one? */
static int opens_function_scope(size_t open)
{
    size_t i = open;
    while (i > 0 && !(is_code[i - 1] && strchr(";{}", text[i - 1]))) i--;
    while (i < open && (isspace((unsigned char)text[i]) || !is_code[i])) i++;
    if (word_at(i, "namespace") || word_at(i, "struct") || word_at(i, "class") || word_at(i, "union") ||
        word_at(i, "enum"))
        return 0;
    if (word_at(i, "extern") && strstr(text + i, "\"C\"") && (size_t)(strstr(text + i, "\"C\"") - text) < open)
        return 0;
    return 1;
}

static void rewrite_shared(size_t keyword, int in_function)
{
    size_t start = keyword;
    int is_extern = 0;
    for (;;) {                                     /* take in qualifiers written before it */
        size_t before = skip_space_back(start);
        size_t word = before;
        while (word > 0 && is_identifier_char(text[word - 1])) word--;
        if (word < before && (word_at(word, "extern") || word_at(word, "static") || word_at(word, "volatile"))) {
            if (word_at(word, "volatile")) break;
            is_extern |= word_at(word, "extern");
            start = word;
        } else {
            break;
        }
    }
    size_t end = keyword;
    int depth = 0;
    while (end < length && !(is_code[end] && depth == 0 && text[end] == ';')) {
        if (is_code[end] && strchr("([{", text[end])) depth++;
        if (is_code[end] && strchr(")]}", text[end])) depth--;
        end++;
    }
    if (end == length) fail(keyword, "a __shared__ declaration without its closing ';'");

    /* Prefix qualifiers such as volatile that came before __shared__ stay in the type. */
    size_t body_start = keyword + strlen("__shared__");
    char *body = trimmed_copy(text + body_start, end - body_start);
    remove_align(body);
    int newlines = 0;
    for (size_t i = start; i < end; i++) newlines += text[i] == '\n';

    /* Split the declarators at top-level commas; the type is in front of the first. */
    char *items[16];
    int item_count = 0;
    depth = 0;
    char *item = body;
    for (char *p = body;; p++) {
        if (*p == '(' || *p == '[' || *p == '<') depth++;
        if (*p == ')' || *p == ']' || *p == '>') depth--;
        if (*p == 0 || (*p == ',' && depth == 0)) {
            if (item_count == 16) fail(keyword, "too many variables in one __shared__ declaration");
            int last = *p == 0;
            *p = 0;
            items[item_count++] = item;
            item = p + 1;
            if (last) break;
        }
    }
    declarator first = parse_declarator(keyword, items[0]);
    char *type = first.pointers;                     /* "float" from "float tile[32]" */
    char *base_type = trimmed_copy(type, strcspn(type, "*&"));

    char *out = NULL;
    size_t out_size = 0;
    FILE *o = open_memstream(&out, &out_size);
    for (int k = 0; k < item_count; k++) {
        declarator d = k == 0 ? first : parse_declarator(keyword, items[k]);
        const char *full_type = k == 0 ? type : base_type;
        const char *stars = k == 0 ? "" : d.pointers;
        if (is_extern) {
            const char *rest = d.dimensions;
            if (strncmp(rest, "[", 1) != 0 || !strchr(rest, ']'))
                fail(keyword, "extern __shared__ must declare an unsized array, as in `extern __shared__ float buffer[];`");
            rest = strchr(rest, ']') + 1;
            if (in_function)
                fprintf(o, "using sim_shared_row_%s = %s%s %s; sim_shared_row_%s *%s = "
                        "static_cast<sim_shared_row_%s *>(sim_shared_dynamic(\"%s\", sizeof(sim_shared_row_%s))); ",
                        d.name, full_type, stars, rest, d.name, d.name, d.name, d.name, d.name);
            else
                fprintf(o, "static sim::dynamic_shared<%s%s %s> %s{\"%s\"}; ", full_type, stars, rest, d.name, d.name);
        } else if (in_function) {
            fprintf(o, "static char sim_shared_key_%s; using sim_shared_type_%s = %s%s %s; "
                    "sim_shared_type_%s &%s = *static_cast<sim_shared_type_%s *>(sim_shared_static("
                    "&sim_shared_key_%s, sizeof(sim_shared_type_%s), alignof(sim_shared_type_%s), \"%s\", "
                    "sim::shape_of<sim_shared_type_%s>())); ",
                    d.name, d.name, full_type, stars, d.dimensions, d.name, d.name, d.name, d.name, d.name,
                    d.name, d.name, d.name);
        } else {
            fprintf(o, "static sim::static_shared<%s%s %s> %s{\"%s\"}; ", full_type, stars, d.dimensions, d.name, d.name);
        }
    }
    for (int i = 0; i < newlines; i++) fputc('\n', o);
    fclose(o);
    add_edit(start, end + 1 - start, "%s", out);
    free(out);
}

/* ---------------------------------------------------------------------------------
 * The scan */

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: cu2sim FILE.cu [INCLUDED-FILE ...] > FILE.cpp   (lib/sim/tools/simcc runs this for you)\n");
        return 2;
    }
    for (int a = 2; a < argc; a++) {       /* the included files: only their template kernels */
        read_input(argv[a]);
        classify();
        find_template_kernels();
    }
    read_input(argv[1]);
    classify();
    find_template_kernels();
    list_kernels();

    char scopes[256];                /* for each open brace: does it open function scope? */
    int depth = 0, function_depth = 0;
    for (size_t i = 0; i < length; i++) {
        if (!is_code[i]) continue;
        char c = text[i];
        if (c == '{') {
            if (depth == (int)sizeof scopes) fail(i, "braces nested too deeply");
            scopes[depth] = opens_function_scope(i);
            function_depth += scopes[depth++];
        } else if (c == '}') {
            if (depth > 0) function_depth -= scopes[--depth];
        } else if (c == '<' && strncmp(text + i, "<<<", 3) == 0 && is_code[i + 1] && is_code[i + 2]) {
            rewrite_launch(i);
            i += 2;
        } else if (word_at(i, "__shared__")) {
            rewrite_shared(i, function_depth > 0);
            while (i < length && !(is_code[i] && text[i] == ';')) i++;
        }
    }
    write_output();
    return 0;
}
