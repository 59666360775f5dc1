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
 *   __global__ void k(int *x, int *sums = NULL) ... k<<<g, b>>>(x)
 *     -> the launch gets the default arguments the kernel's declaration gives (sim::launcher,
 *        unlike a call, cannot see them)
 *
 *   dim3 gridDim(4), blockDim(256);           (a host variable named like a built-in)
 *     -> dim3 sim_host_gridDim(4), ...: in CUDA the built-in variables exist in device code only,
 *        here they are macros, so the host's own variable of that name is renamed in its scope
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

/* text[from, to) without its leading and trailing spaces, in a new string. */
static char *trimmed_copy_of(size_t from, size_t to)
{
    while (from < to && isspace((unsigned char)text[from])) from++;
    while (to > from && isspace((unsigned char)text[to - 1])) to--;
    char *s = resize_or_exit(NULL, to - from + 1);
    memcpy(s, text + from, to - from);
    s[to - from] = 0;
    return s;
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

/* Kernels whose declaration gives default arguments: the name, its parameter count and the default
 * expressions of its last parameters, found in this file and the files it includes. */
typedef struct kernel_defaults { char name[128]; int parameters, defaulted; char *values[16]; } kernel_defaults;
static kernel_defaults defaults[64];
static int defaults_count;

/* The number of top-level, comma-separated items between the brackets at open and close. */
static int count_items(size_t open, size_t close, size_t *starts)
{
    int depth = 0, items = 0, empty = 1;
    for (size_t i = open + 1; i < close; i++) {
        if (!is_code[i]) { empty = 0; continue; }
        if (strchr("([{", text[i])) depth++;
        else if (strchr(")]}", text[i])) depth--;
        if (!isspace((unsigned char)text[i])) empty = 0;
        if (depth == 0 && text[i] == ',') { if (starts && items < 16) starts[items] = i; items++; }
    }
    if (starts && items < 16) starts[items] = close;
    return empty ? 0 : items + 1;
}

static size_t matching_close(size_t open);

static void find_kernel_defaults(void)
{
    for (size_t i = 0; i < length; i++) {
        if (!word_at(i, "__global__")) continue;
        size_t j = i + strlen("__global__");
        while (j < length && !(is_code[j] && strchr("(;{}", text[j]))) j++;
        while (j < length && text[j] == '(') {   /* past __launch_bounds__(...) to the parameter list */
            size_t end = skip_space_back(j), start = end;
            while (start > i && is_identifier_char(text[start - 1])) start--;
            if (end - start != strlen("__launch_bounds__") || strncmp(text + start, "__launch_bounds__", end - start)) {
                size_t close = matching_close(j), commas[17];
                int count = count_items(j, close, commas);
                if (count == 0 || count > 16 || end - start >= 128 || defaults_count == 64) break;
                kernel_defaults d = {.parameters = count};
                memcpy(d.name, text + start, end - start);
                for (int k = 0; k < count; k++) {
                    size_t from = k == 0 ? j + 1 : commas[k - 1] + 1, to = commas[k];
                    size_t equals = from;
                    while (equals < to && !(is_code[equals] && text[equals] == '=')) equals++;
                    if (equals == to) continue;
                    /* the value cast to the parameter's type, as a call would convert it: NULL stays a null pointer */
                    size_t name_end = skip_space_back(equals), name_start = name_end;
                    while (name_start > from && is_identifier_char(text[name_start - 1])) name_start--;
                    char *type = trimmed_copy_of(from, name_start > from ? name_start : name_end);
                    char *value = trimmed_copy_of(equals + 1, to);
                    if (asprintf(&d.values[d.defaulted++], "static_cast<%s>(%s)", type, value) < 0) exit(EXIT_FAILURE);
                    free(type);
                    free(value);
                }
                if (d.defaulted > 0) defaults[defaults_count++] = d;
                break;
            }
            j = matching_close(j) + 1;
            while (j < length && !(is_code[j] && strchr("(;{}", text[j]))) j++;
        }
    }
}

static const kernel_defaults *defaults_of(const char *name)
{
    for (int k = 0; k < defaults_count; k++)
        if (strcmp(defaults[k].name, name) == 0) return &defaults[k];
    return NULL;
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
    const kernel_defaults *d = defaults_of(name);
    size_t arguments = close + 3;
    while (arguments < length && (isspace((unsigned char)text[arguments]) || !is_code[arguments])) arguments++;
    if (!d || arguments >= length || text[arguments] != '(') return;
    int given = count_items(arguments, matching_close(arguments), NULL), missing = d->parameters - given;
    if (missing <= 0 || missing > d->defaulted) return;   /* too few even with the defaults: the compiler says so */
    char *added = NULL;
    size_t added_size = 0;
    FILE *o = open_memstream(&added, &added_size);
    for (int k = d->defaulted - missing; k < d->defaulted; k++)
        fprintf(o, "%s%s", given++ > 0 ? ", " : "", d->values[k]);
    fclose(o);
    add_edit(matching_close(arguments), 0, "%s", added);
    free(added);
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
    size_t start = keyword, type_start = keyword;
    int is_extern = 0;
    /* take in the qualifiers written before it, and a type written before it (`extern float __shared__ s[]`) */
    for (;;) {
        size_t before = skip_space_back(start);
        size_t word = before;
        while (word > 0 && is_identifier_char(text[word - 1])) word--;
        if (word == before || word_at(word, "volatile") || word_at(word, "return") || word_at(word, "else")) break;
        size_t ahead = skip_space_back(word);
        if (ahead > 0 && text[ahead - 1] == '#') break;   /* a directive's word, not this declaration's */
        if (word_at(word, "extern") || word_at(word, "static")) is_extern |= word_at(word, "extern");
        else if (type_start == keyword || type_start == start) type_start = word;
        else break;
        start = word;
    }
    char *type_before = trimmed_copy_of(type_start, type_start == keyword ? keyword : skip_space_back(keyword));
    for (size_t w = type_start; w < keyword; w++)   /* only type words between type_start and __shared__ */
        if (word_at(w, "extern") || word_at(w, "static"))
            fail(keyword, "write extern or static first, as in `extern __shared__ float s[];`");
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
    char *after = trimmed_copy(text + body_start, end - body_start), *body = NULL;
    if (asprintf(&body, "%s%s%s", type_before, *type_before ? " " : "", after) < 0) exit(EXIT_FAILURE);
    free(after);
    free(type_before);
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
 * Host variables named like the built-in variables */

static const char *const builtin_names[] = {"gridDim", "blockDim", "blockIdx", "threadIdx"};

static const char *builtin_at(size_t i)
{
    for (size_t k = 0; k < sizeof builtin_names / sizeof builtin_names[0]; k++)
        if (word_at(i, builtin_names[k])) return builtin_names[k];
    return NULL;
}

static size_t skip_space(size_t i)
{
    while (i < length && (isspace((unsigned char)text[i]) || !is_code[i])) i++;
    return i;
}

/* Renames `name` to sim_host_<name> at every use from `from` up to `to`. */
static void rename_in(const char *name, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (word_at(i, name)) add_edit(i, strlen(name), "sim_host_%s", name), i += strlen(name);
}

/* `dim3 gridDim(...)`, a parameter `dim3 blockDim`, or a later declarator of the same statement:
 * the variable is renamed from its declaration to the end of its scope. `block` is the position of
 * the innermost '{' open at `type` (or length at file scope). */
static void rename_host_builtins(size_t type, size_t block)
{
    size_t open_paren = type;   /* an unclosed '(' before it in the statement: a parameter list */
    int depth = 0;
    while (open_paren > 0) {
        char c = text[open_paren - 1];
        if (is_code[open_paren - 1] && c == ')') depth++;
        if (is_code[open_paren - 1] && c == '(' && depth-- == 0) break;
        if (is_code[open_paren - 1] && depth == 0 && strchr(";{}", c)) { open_paren = 0; break; }
        open_paren--;
    }
    size_t scope_end = block < length ? matching_close(block) : length;
    if (open_paren > 0) {   /* a parameter: its scope is the function's body */
        size_t body = skip_space(matching_close(open_paren - 1) + 1);
        if (body >= length || text[body] != '{') return;   /* a declaration: nothing to rename */
        scope_end = matching_close(body);
    }
    size_t i = skip_space(type + 4);
    for (;;) {
        const char *name = builtin_at(i);
        if (name) rename_in(name, i, scope_end);
        depth = 0;   /* on to the next top-level ',' of this declaration, if it is one */
        while (i < length && !(is_code[i] && depth == 0 && strchr(",;)", text[i]))) {
            if (is_code[i] && strchr("([{", text[i])) depth++;
            if (is_code[i] && strchr(")]}", text[i])) depth--;
            i++;
        }
        if (i >= length || text[i] != ',' || open_paren > 0) return;
        i = skip_space(i + 1);
    }
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
        find_kernel_defaults();
    }
    read_input(argv[1]);
    classify();
    find_template_kernels();
    find_kernel_defaults();
    list_kernels();

    char scopes[256];                /* for each open brace: does it open function scope? */
    size_t opened_at[256];           /* ... and where it is */
    int depth = 0, function_depth = 0;
    for (size_t i = 0; i < length; i++) {
        if (!is_code[i]) continue;
        char c = text[i];
        if ((word_at(i, "dim3") || word_at(i, "uint3")) && builtin_at(skip_space(i + 4))) {
            rename_host_builtins(i, depth > 0 ? opened_at[depth - 1] : length);
        } else if (c == '{') {
            if (depth == (int)sizeof scopes) fail(i, "braces nested too deeply");
            opened_at[depth] = i;
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
