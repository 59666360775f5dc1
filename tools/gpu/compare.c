/* compare.c — holds what the simulator counted for each kernel launch of a day's lab against what
 * Nsight Compute measured for the same launch on a GPU (tools/gpu/report runs both).
 *
 *   gpu-compare METRICS.list DAY SIM-REPORT.txt NCU.csv|- COMPARISON.csv TABLE.md
 *   gpu-compare --ncu METRICS.list NCU.csv   the launches an ncu CSV holds, one a line (for the tests)
 *   gpu-compare --sim SIM-REPORT.txt         the launches a simulator report holds, one a line
 *
 * SIM-REPORT.txt is what a program prints on the simulator with SIM_REPORT=1 (lib/sim/metrics.c:
 * one "sim report:" block per launch, anything else between them ignored). NCU.csv is what
 * `ncu --import REPORT --csv --print-units base` prints: a header row with at least "ID", "Kernel
 * Name", "Metric Name", "Metric Unit" and "Metric Value" (and "Grid Size", "Block Size" where ncu
 * writes them), then one row per launch and metric; every field quoted, values possibly with
 * thousands separators ("1,024") or "n/a"; lines before the header (==PROF== messages) skipped.
 * "-" for NCU.csv: no ncu here, so the simulator's counts and estimates are written alone.
 *
 * A launch of the simulator and one of ncu are the same launch when the kernel's name (without
 * template arguments, parameters or namespace), the grid and the block agree, and each is the n-th
 * such launch of its program: the GPU's program launches more (the drivers' timed runs), but
 * tools/gpu/report profiles only the first launches of each configuration.
 *
 * COMPARISON.csv gets one row per launch and quantity of METRICS.list (header included); TABLE.md
 * gets one markdown table row per kernel (no header: tools/gpu/report writes it). Exit status 0
 * when both were written, whatever they say; 2 on a file that cannot be read or understood. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_FIELDS = 64, MAX_METRICS = 32, NAME_SIZE = 128, LINE_SIZE = 8192 };

static void fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "gpu-compare: ");
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n");
    va_end(args);
    exit(2);
}

static void *grow(void *array, size_t *capacity, size_t count, size_t element)
{
    if (count < *capacity) return array;
    *capacity = *capacity ? 2 * *capacity : 64;
    array = realloc(array, *capacity * element);
    if (!array) fail("out of memory");
    return array;
}

/* ---------------------------------------------------------------------------------
 * The list of metrics (tools/gpu/metrics.list) */

typedef enum { EXACT, WITHIN_5, SHOWN, TIME } rule;
static const char *rule_names[] = {"exact", "within-5", "shown", "time"};

typedef struct metric { char quantity[64], name[NAME_SIZE]; double weight; rule rule; } metric;
static metric metrics[MAX_METRICS];
static int metric_count;

/* The quantities the simulator reports, by the names metrics.list uses. */
enum { Q_GLD_REQ, Q_GLD_SEC, Q_GST_REQ, Q_GST_SEC, Q_SLD_REQ, Q_SLD_WAVE, Q_SST_REQ, Q_SST_WAVE, Q_SLD_EXTRA,
       Q_SST_EXTRA, Q_FLOPS, Q_SECTOR_BYTES, Q_ESTIMATE_NS, QUANTITIES };
static const char *quantity_names[QUANTITIES] = {
    "global_load_requests", "global_load_sectors", "global_store_requests", "global_store_sectors",
    "shared_load_requests", "shared_load_wavefronts", "shared_store_requests", "shared_store_wavefronts",
    "shared_load_extra_wavefronts", "shared_store_extra_wavefronts", "declared_flops", "sector_bytes", "estimate_ns"};

static int quantity_index(const char *name)
{
    for (int q = 0; q < QUANTITIES; q++)
        if (strcmp(name, quantity_names[q]) == 0) return q;
    return -1;
}

static void read_metrics(const char *path)
{
    FILE *file = fopen(path, "r");
    if (!file) fail("cannot read %s", path);
    char line[LINE_SIZE], rule_text[32];
    for (int number = 1; fgets(line, sizeof line, file); number++) {
        char *text = line + strspn(line, " \t");
        if (*text == '#' || *text == '\n' || *text == 0) continue;
        if (metric_count == MAX_METRICS) fail("%s: more than %d metrics", path, MAX_METRICS);
        metric *m = &metrics[metric_count];
        if (sscanf(text, "%63s %127s %lf %31s", m->quantity, m->name, &m->weight, rule_text) != 4)
            fail("%s:%d: expected: quantity, ncu metric, weight, rule", path, number);
        if (quantity_index(m->quantity) < 0) fail("%s:%d: the simulator reports no quantity '%s'", path, number, m->quantity);
        int r = 0;
        while (r < 4 && strcmp(rule_text, rule_names[r]) != 0) r++;
        if (r == 4) fail("%s:%d: the rule is exact, within-5, shown or time, not '%s'", path, number, rule_text);
        m->rule = (rule)r;
        metric_count++;
    }
    fclose(file);
    if (metric_count == 0) fail("%s lists no metric", path);
}

/* ---------------------------------------------------------------------------------
 * Launches, and what makes two of them the same */

typedef struct launch {
    char name[NAME_SIZE];          /* as the report wrote it */
    char base[NAME_SIZE];          /* without templates, parameters, return type or namespace */
    unsigned grid[3], block[3];    /* all 0: not known (an ncu CSV without those columns) */
    double value[MAX_METRICS];     /* ncu: by metric; NAN where it gave none */
    double quantity[QUANTITIES];   /* the simulator's counts */
    int occurrence;                /* how many launches of the same configuration came before it */
} launch;

typedef struct launches { launch *at; size_t count, capacity; } launches;

/* "void hold_values<4>(float*, float)" -> "hold_values"; "ns::k" -> "k"; "probe_load<T>" -> "probe_load" */
static void base_name(const char *name, char *base, size_t size)
{
    char plain[NAME_SIZE];
    size_t n = 0;
    int depth = 0;
    for (const char *c = name; *c && n < sizeof plain - 1; c++) {
        if (*c == '<') depth++;
        else if (*c == '>' && depth > 0) depth--;
        else if (*c == '(' && depth == 0) break;
        else if (depth == 0) plain[n++] = *c;
    }
    while (n > 0 && isspace((unsigned char)plain[n - 1])) n--;
    plain[n] = 0;
    const char *start = plain;
    for (const char *c = plain; *c; c++)
        if (*c == ' ' || (*c == ':' && c[1] == ':')) start = c + 1 + (*c == ':');
    snprintf(base, size, "%s", start);
}

static int same_configuration(const launch *a, const launch *b)
{
    if (strcmp(a->base, b->base) != 0) return 0;
    if (!a->grid[0] || !b->grid[0]) return 1;   /* dimensions not known on one side */
    return memcmp(a->grid, b->grid, sizeof a->grid) == 0 && memcmp(a->block, b->block, sizeof a->block) == 0;
}

static void number_occurrences(launches *l)
{
    for (size_t i = 0; i < l->count; i++) {
        l->at[i].occurrence = 0;
        for (size_t j = 0; j < i; j++) l->at[i].occurrence += same_configuration(&l->at[i], &l->at[j]);
    }
}

/* "(32, 1, 1)" or "(32,1,1)" */
static void parse_dimensions(const char *text, unsigned d[3])
{
    d[0] = d[1] = d[2] = 0;
    if (sscanf(text, " (%u , %u , %u )", &d[0], &d[1], &d[2]) != 3) d[0] = d[1] = d[2] = 0;
}

/* ---------------------------------------------------------------------------------
 * The simulator's report (SIM_REPORT=1) */

static launches read_sim_report(const char *path)
{
    FILE *file = fopen(path, "r");
    if (!file) fail("cannot read %s", path);
    launches l = {0};
    launch *current = NULL;
    char line[LINE_SIZE];
    while (fgets(line, sizeof line, file)) {
        unsigned long long a, b;
        double estimate_us, flops;
        if (strncmp(line, "sim report: ", 12) == 0) {
            char *chevrons = strstr(line, "<<<(");
            if (!chevrons) fail("%s: a 'sim report:' line without <<<(grid), (block)>>>: %s", path, line);
            l.at = grow(l.at, &l.capacity, l.count, sizeof *l.at);
            current = &l.at[l.count++];
            memset(current, 0, sizeof *current);
            snprintf(current->name, sizeof current->name, "%.*s", (int)(chevrons - (line + 12)), line + 12);
            base_name(current->name, current->base, sizeof current->base);
            if (sscanf(chevrons, "<<<(%u,%u,%u), (%u,%u,%u)>>>", &current->grid[0], &current->grid[1], &current->grid[2],
                       &current->block[0], &current->block[1], &current->block[2]) != 6)
                fail("%s: cannot read the grid and block of: %s", path, line);
            current->quantity[Q_ESTIMATE_NS] = NAN;
        } else if (!current) {
            continue;
        } else if (sscanf(line, " global loads %llu requests %llu sectors", &a, &b) == 2) {
            current->quantity[Q_GLD_REQ] = (double)a, current->quantity[Q_GLD_SEC] = (double)b;
        } else if (sscanf(line, " global stores %llu requests %llu sectors", &a, &b) == 2) {
            current->quantity[Q_GST_REQ] = (double)a, current->quantity[Q_GST_SEC] = (double)b;
        } else if (sscanf(line, " shared loads %llu requests %llu wavefronts", &a, &b) == 2) {
            current->quantity[Q_SLD_REQ] = (double)a, current->quantity[Q_SLD_WAVE] = (double)b;
        } else if (sscanf(line, " shared stores %llu requests %llu wavefronts", &a, &b) == 2) {
            current->quantity[Q_SST_REQ] = (double)a, current->quantity[Q_SST_WAVE] = (double)b;
        } else if (strstr(line, "roofline estimate on ")) {
            const char *colon = strchr(strstr(line, "roofline estimate on "), ':'), *bound = strstr(line, "-bound; ");
            if (colon && sscanf(colon + 1, "%lf us", &estimate_us) == 1) current->quantity[Q_ESTIMATE_NS] = estimate_us * 1e3;
            if (bound && sscanf(bound + 8, "%lf FLOP declared", &flops) == 1) current->quantity[Q_FLOPS] = flops;
        }
    }
    fclose(file);
    for (size_t i = 0; i < l.count; i++) {
        double *q = l.at[i].quantity;
        q[Q_SLD_EXTRA] = q[Q_SLD_WAVE] - q[Q_SLD_REQ];
        q[Q_SST_EXTRA] = q[Q_SST_WAVE] - q[Q_SST_REQ];
        q[Q_SECTOR_BYTES] = 32 * (q[Q_GLD_SEC] + q[Q_GST_SEC]);
    }
    number_occurrences(&l);
    return l;
}

/* ---------------------------------------------------------------------------------
 * Nsight Compute's CSV */

/* Splits one CSV line into fields (quoted or not; "" inside quotes is one quote), in place. */
static int split_csv(char *line, char **fields, int most)
{
    int count = 0;
    char *read = line, *write = line;
    line[strcspn(line, "\r\n")] = 0;
    while (count < most) {
        fields[count++] = write;
        if (*read == '"') {
            read++;
            while (*read && !(read[0] == '"' && read[1] != '"')) {
                if (read[0] == '"') read++;   /* the first of "" */
                *write++ = *read++;
            }
            if (*read == '"') read++;
        } else {
            while (*read && *read != ',') *write++ = *read++;
        }
        if (*read != ',') { *write = 0; break; }
        *write++ = 0, read++;
    }
    return count;
}

static int column(char **header, int fields, const char *name)
{
    for (int i = 0; i < fields; i++)
        if (strcmp(header[i], name) == 0) return i;
    return -1;
}

/* A value in the unit the comparison uses: times in nanoseconds, everything else as counted.
 * With --print-units base ncu writes base units; the prefixes ncu scales by otherwise are undone. */
static double value_in_base_unit(const char *text, const char *unit)
{
    char digits[64];
    size_t n = 0;
    for (const char *c = text; *c && n < sizeof digits - 1; c++)
        if (*c != ',' && !isspace((unsigned char)*c)) digits[n++] = *c;
    digits[n] = 0;
    char *end;
    double value = strtod(digits, &end);
    if (n == 0 || *end) return NAN;   /* "n/a", or nothing */
    static const struct { const char *unit; double scale; } times[] = {
        {"nsecond", 1}, {"usecond", 1e3}, {"msecond", 1e6}, {"second", 1e9}, {"ns", 1}, {"us", 1e3}, {"ms", 1e6}};
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
        if (strcmp(unit, times[i].unit) == 0) return value * times[i].scale;
    const char *prefixes = "KMGT";
    const char *prefix = unit[0] ? strchr(prefixes, unit[0]) : NULL;
    if (prefix && islower((unsigned char)unit[1])) value *= pow(1e3, (double)(prefix - prefixes + 1));
    return value;
}

static int metric_index(const char *name)
{
    for (int m = 0; m < metric_count; m++)
        if (strcmp(metrics[m].name, name) == 0) return m;
    return -1;
}

static launches read_ncu_csv(const char *path)
{
    FILE *file = fopen(path, "r");
    if (!file) fail("cannot read %s", path);
    launches l = {0};
    char line[LINE_SIZE], header_line[LINE_SIZE], *header[MAX_FIELDS], *field[MAX_FIELDS];
    int header_fields = 0, id_col = -1, name_col = -1, metric_col = -1, unit_col = -1, value_col = -1, grid_col = -1,
        block_col = -1;
    long last_id = -1;
    while (fgets(line, sizeof line, file)) {
        if (header_fields == 0) {
            if (strncmp(line, "\"ID\",", 5) != 0) continue;   /* ==PROF== lines and the program's output */
            strcpy(header_line, line);
            header_fields = split_csv(header_line, header, MAX_FIELDS);
            id_col = column(header, header_fields, "ID"), name_col = column(header, header_fields, "Kernel Name");
            metric_col = column(header, header_fields, "Metric Name"), unit_col = column(header, header_fields, "Metric Unit");
            value_col = column(header, header_fields, "Metric Value");
            grid_col = column(header, header_fields, "Grid Size"), block_col = column(header, header_fields, "Block Size");
            if (name_col < 0 || metric_col < 0 || unit_col < 0 || value_col < 0)
                fail("%s: the header lacks one of \"Kernel Name\", \"Metric Name\", \"Metric Unit\", \"Metric Value\" "
                     "(was it written by ncu --csv --page details?)", path);
            continue;
        }
        if (line[0] != '"') continue;
        int fields = split_csv(line, field, MAX_FIELDS);
        if (fields != header_fields) fail("%s: a row of %d fields under a header of %d: %s", path, fields, header_fields, line);
        char *stop;
        long id = strtol(field[id_col], &stop, 10);
        if (*stop || stop == field[id_col]) fail("%s: the ID \"%s\" is not a number", path, field[id_col]);
        if (id != last_id) {
            l.at = grow(l.at, &l.capacity, l.count, sizeof *l.at);
            launch *next = &l.at[l.count++];
            memset(next, 0, sizeof *next);
            for (int m = 0; m < MAX_METRICS; m++) next->value[m] = NAN;
            snprintf(next->name, sizeof next->name, "%s", field[name_col]);
            base_name(next->name, next->base, sizeof next->base);
            if (grid_col >= 0 && block_col >= 0)
                parse_dimensions(field[grid_col], next->grid), parse_dimensions(field[block_col], next->block);
            last_id = id;
        }
        launch *current = &l.at[l.count - 1];
        int m = metric_index(field[metric_col]);   /* metrics not in metrics.list are left out */
        if (m >= 0) current->value[m] = value_in_base_unit(field[value_col], field[unit_col]);
    }
    fclose(file);
    if (header_fields == 0) fail("%s holds no ncu CSV header (a line starting \"ID\",)", path);
    number_occurrences(&l);
    return l;
}

/* ---------------------------------------------------------------------------------
 * Judging */

static void print_number(FILE *out, double value)
{
    if (isnan(value)) return;
    if (value == floor(value) && fabs(value) < 1e15) fprintf(out, "%.0f", value);
    else fprintf(out, "%.4g", value);
}

/* A quantity's ncu value: the weighted sum of its metrics; NAN if ncu gave none of them. */
static double ncu_quantity(const launch *gpu, const char *quantity)
{
    double sum = 0;
    int found = 0;
    for (int m = 0; m < metric_count; m++) {
        if (strcmp(metrics[m].quantity, quantity) != 0 || isnan(gpu->value[m])) continue;
        sum += metrics[m].weight * gpu->value[m], found = 1;
    }
    return found ? sum : NAN;
}

typedef struct kernel_summary {
    char base[NAME_SIZE];
    int counted, compared, equal, differ;
    char first_difference[160];
    double measured_ns, estimate_ns;   /* summed over the launches that have both */
    double estimate_alone_ns;          /* summed over every counted launch */
} kernel_summary;

static const char *verdict(rule r, double sim, double gpu, char *text, size_t size)
{
    if (isnan(gpu)) return "ncu gave no value";
    switch (r) {
    case EXACT: return sim == gpu ? "equal" : "differs";
    case WITHIN_5:
        if (sim == 0) return "not declared";
        return fabs(sim - gpu) <= 0.05 * fmax(fabs(gpu), 1) ? "equal" : "differs";
    case SHOWN: return "shown";
    case TIME:
        if (isnan(sim) || sim <= 0) return "no estimate";
        snprintf(text, size, "measured/estimate %.3g", gpu / sim);
        return text;
    }
    return "";
}

static void compare(const char *day, launches *sim, launches *gpu, FILE *csv, FILE *table)
{
    fprintf(csv, "day,launch,kernel,grid,block,quantity,simulator,ncu,rule,verdict\n");
    kernel_summary *kernels = NULL;
    size_t kernel_count = 0, kernel_capacity = 0;
    for (size_t i = 0; i < sim->count; i++) {
        launch *s = &sim->at[i];
        size_t k = 0;
        while (k < kernel_count && strcmp(kernels[k].base, s->base) != 0) k++;
        if (k == kernel_count) {
            kernels = grow(kernels, &kernel_capacity, kernel_count, sizeof *kernels);
            memset(&kernels[kernel_count], 0, sizeof *kernels);
            snprintf(kernels[kernel_count++].base, NAME_SIZE, "%s", s->base);
        }
        kernel_summary *summary = &kernels[k];
        summary->counted++;
        if (!isnan(s->quantity[Q_ESTIMATE_NS])) summary->estimate_alone_ns += s->quantity[Q_ESTIMATE_NS];
        launch *g = NULL;
        for (size_t j = 0; gpu && j < gpu->count && !g; j++)
            if (same_configuration(s, &gpu->at[j]) && gpu->at[j].occurrence == s->occurrence) g = &gpu->at[j];
        char where[160];
        snprintf(where, sizeof where, "%s,%zu,%s,%ux%ux%u,%ux%ux%u", day, i + 1, s->base, s->grid[0], s->grid[1],
                 s->grid[2], s->block[0], s->block[1], s->block[2]);
        if (gpu && !g) {
            fprintf(csv, "%s,launch,1,,,not profiled on the GPU (not launched there or past the profiling cap)\n", where);
            continue;
        }
        if (g) summary->compared++;
        const char *done[MAX_METRICS];
        int done_count = 0;
        for (int m = 0; m < metric_count; m++) {
            const char *quantity = metrics[m].quantity;
            int seen = 0;
            for (int d = 0; d < done_count; d++) seen |= strcmp(done[d], quantity) == 0;
            if (seen) continue;
            done[done_count++] = quantity;
            double simulated = s->quantity[quantity_index(quantity)], measured = g ? ncu_quantity(g, quantity) : NAN;
            char text[64];
            const char *judged = g ? verdict(metrics[m].rule, simulated, measured, text, sizeof text) : "ncu not run";
            fprintf(csv, "%s,%s,", where, quantity);
            print_number(csv, simulated);
            fputc(',', csv);
            print_number(csv, measured);
            fprintf(csv, ",%s,%s\n", rule_names[metrics[m].rule], judged);
            if (strcmp(judged, "equal") == 0) summary->equal++;
            if (strcmp(judged, "differs") == 0) {
                if (summary->differ++ == 0)
                    snprintf(summary->first_difference, sizeof summary->first_difference, "%s: %.0f vs %.0f (launch %zu)",
                             quantity, simulated, measured, i + 1);
            }
            if (metrics[m].rule == TIME && g && !isnan(measured) && !isnan(simulated)) {
                summary->measured_ns += measured, summary->estimate_ns += simulated;
            }
        }
    }
    for (size_t k = 0; k < kernel_count; k++) {
        kernel_summary *s = &kernels[k];
        fprintf(table, "| %.2s | `%s` | %d / %d | ", day, s->base, s->compared, s->counted);
        if (!gpu) {
            fprintf(table, "– | – | ncu not run | – | %.3g | – |\n", s->estimate_alone_ns / 1e3);
            continue;
        }
        fprintf(table, "%d | %d | %s | ", s->equal, s->differ, s->differ ? s->first_difference : (s->compared ? "none" : "–"));
        if (s->measured_ns > 0 && s->estimate_ns > 0)
            fprintf(table, "%.3g | %.3g | %.3g |\n", s->measured_ns / 1e3, s->estimate_ns / 1e3, s->measured_ns / s->estimate_ns);
        else
            fprintf(table, "– | %.3g | – |\n", s->estimate_alone_ns / 1e3);
    }
    free(kernels);
}

/* ---------------------------------------------------------------------------------
 * The listings the tests read */

static void print_launch_heading(const launch *l)
{
    printf("%s\t%u,%u,%u\t%u,%u,%u", l->base, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2]);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--ncu") == 0) {
        read_metrics(argv[2]);
        launches l = read_ncu_csv(argv[3]);
        for (size_t i = 0; i < l.count; i++) {
            print_launch_heading(&l.at[i]);
            for (int m = 0; m < metric_count; m++) {
                printf("\t%s=", metrics[m].name);
                if (isnan(l.at[i].value[m])) printf("none");
                else print_number(stdout, l.at[i].value[m]);
            }
            printf("\n");
        }
        free(l.at);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--sim") == 0) {
        launches l = read_sim_report(argv[2]);
        for (size_t i = 0; i < l.count; i++) {
            print_launch_heading(&l.at[i]);
            for (int q = 0; q < QUANTITIES; q++) {
                printf("\t%s=", quantity_names[q]);
                if (isnan(l.at[i].quantity[q])) printf("none");
                else print_number(stdout, l.at[i].quantity[q]);
            }
            printf("\n");
        }
        free(l.at);
        return 0;
    }
    if (argc != 7) {
        fprintf(stderr, "usage: gpu-compare METRICS.list DAY SIM-REPORT.txt NCU.csv|- COMPARISON.csv TABLE.md\n"
                        "       gpu-compare --ncu METRICS.list NCU.csv\n"
                        "       gpu-compare --sim SIM-REPORT.txt\n");
        return 2;
    }
    read_metrics(argv[1]);
    launches sim = read_sim_report(argv[3]);
    launches gpu = {0};
    int have_ncu = strcmp(argv[4], "-") != 0;
    if (have_ncu) gpu = read_ncu_csv(argv[4]);
    FILE *csv = fopen(argv[5], "w"), *table = fopen(argv[6], "w");
    if (!csv || !table) fail("cannot write %s or %s", argv[5], argv[6]);
    compare(argv[2], &sim, have_ncu ? &gpu : NULL, csv, table);
    if (fclose(csv) != 0 || fclose(table) != 0) fail("cannot finish writing %s or %s", argv[5], argv[6]);
    free(sim.at), free(gpu.at);
    return 0;
}
