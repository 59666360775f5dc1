/* main.c — Day 09 driver: what one warp-wide load costs, by stride, by offset and by layout.
 * Do not edit.
 *
 *   build/09-coalescing/labs-sim/lab RESULTS.csv     (make check DAY=09 runs it)
 *
 * Runs the strided copy for strides 1 to 64 (offset 0) and for offsets 0 to 16 (stride 1),
 * then the particle update in both layouts. Each run is checked first; a run that is not
 * right yet is left out. One row per run:
 *   case,stride,offset,load_sectors_per_request,store_sectors_per_request,load_efficiency,
 *   model_sectors_per_request,h100_predicted_gb_per_s,measured_gpu_gb_per_s
 * case is stride, offset, aos or soa. On the simulator the sectors and the efficiency are
 * counted, and h100_predicted_gb_per_s is your copy_predicted_gb_per_s at the H100 SXM's
 * bandwidth (data/gpus.csv) from the counted sectors: a prediction, not a measurement.
 * model_sectors_per_request is your sectors_per_request for the same access. On a real GPU
 * (BACKEND=cuda) the counted columns are empty, the prediction uses your model's sectors, and
 * measured_gpu_gb_per_s is the copy's bytes read and written over the median of 20 timed runs. */
#include "lab.h"
#include "results.h"
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 8192, THREADS = 256, GPU_N = 1 << 22, REPEATS = 20, MAX_OFFSET = 16 };
static const int strides[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 64};
enum { STRIDES = sizeof strides / sizeof strides[0] };
static const float DT = 0.01f;

/* Whether the copy gave out[i] = in[offset + i * stride] for every i, and wrote nothing else. */
static int copy_is_right(const float *in, const float *out, int n, int stride, int offset, access_run run)
{
    if (run.error || run.written_past_end) return 0;
    for (int i = 0; i < n; i++)
        if (memcmp(&out[i], &in[offset + (long long)i * stride], sizeof(float)) != 0) return 0;
    return 1;
}

static void print_header(void)
{
    printf("case     stride offset   load sectors  store sectors  load        model    H100 copy GB/s\n"
           "                         /request      /request       efficiency  sectors  (predicted)\n");
}

/* Runs one copy, prints it and writes its row. */
static int copy_row(lab_results *out, const char *name, int stride, int offset, const float *in, float *copied,
                    double bandwidth)
{
    access_run run = gpu_strided_copy(in, copied, N, stride, offset, THREADS, 1);
    if (!copy_is_right(in, copied, N, stride, offset, run)) {
        printf("%-8s %6d %6d   not right yet (%s): not measured. make check DAY=09 says which check fails.\n", name,
               stride, offset, run.error ? run.error : "wrong output");
        return 0;
    }
    int model = sectors_per_request(stride, offset, 4), coalesced_model = sectors_per_request(1, 0, 4);
    char model_text[16] = "", predicted[32] = "", measured[32] = "";
    if (model > 0) snprintf(model_text, sizeof model_text, "%d", model);
    double gpu_ms = gpu_strided_copy_milliseconds(GPU_N, stride, offset, REPEATS);
    if (gpu_ms > 0) snprintf(measured, sizeof measured, "%.1f", 2.0 * 4 * GPU_N / (gpu_ms * 1e-3) / 1e9);
    if (run.counted) {
        snprintf(predicted, sizeof predicted, "%.1f",
                 copy_predicted_gb_per_s(bandwidth, 4, run.load_sectors_per_request, run.store_sectors_per_request));
        printf("%-8s %6d %6d   %12.2f  %13.2f  %10.3f  %7s  %s\n", name, stride, offset, run.load_sectors_per_request,
               run.store_sectors_per_request, run.load_efficiency, model_text, predicted);
        lab_results_row_or_exit(out, "%s,%d,%d,%.4f,%.4f,%.4f,%s,%s,%s", name, stride, offset, run.load_sectors_per_request,
                        run.store_sectors_per_request, run.load_efficiency, model_text, predicted, measured);
    } else {
        if (model > 0 && coalesced_model > 0)
            snprintf(predicted, sizeof predicted, "%.1f",
                     copy_predicted_gb_per_s(bandwidth, 4, model, coalesced_model));
        printf("%-8s %6d %6d   measured on this GPU: %s GB/s; your model: %s sectors, H100 %s GB/s (predicted)\n",
               name, stride, offset, measured, model_text, predicted);
        lab_results_row_or_exit(out, "%s,%d,%d,,,,%s,%s,%s", name, stride, offset, model_text, predicted, measured);
    }
    return 1;
}

/* Particles with positions in [-100, 100) and velocities in [-10, 10). */
static void make_particles(particle *p, int n)
{
    unsigned seed = 9;
    for (int i = 0; i < n; i++) {
        float *fields = &p[i].x;
        for (int f = 0; f < 8; f++) {
            seed = seed * 1664525u + 1013904223u;
            float unit = (float)(seed >> 8) / 16777216.0f;   /* [0, 1) */
            fields[f] = f < 3 ? 200 * unit - 100 : 20 * unit - 10;
        }
    }
}

/* Runs the update in one layout, checks it against the original's result, writes its row. */
static int particle_row(lab_results *out, const char *name, int soa, const particle *start, const particle *want)
{
    particle *p = malloc(sizeof(particle) * N);
    memcpy(p, start, sizeof(particle) * N);
    access_run run = soa ? gpu_update_particles_soa(p, N, DT, THREADS, 1)
                         : gpu_update_particles_aos(p, N, DT, THREADS, 1);
    int right = !run.error;
    for (int i = 0; i < N && right; i++) {
        const float *got = &p[i].x, *expected = &want[i].x;
        for (int f = 0; f < 8; f++)   /* within a few units in the last place; NaN never passes */
            right &= fabsf(got[f] - expected[f]) <= 1e-6f * (1 + fabsf(expected[f]));
    }
    free(p);
    int stride = soa ? 1 : (int)(sizeof(particle) / sizeof(float)), model = sectors_per_request(stride, 0, 4);
    char model_text[16] = "", measured[32] = "";
    if (model > 0) snprintf(model_text, sizeof model_text, "%d", model);
    if (!right) {
        printf("%-8s  not right yet (%s): not measured. make check DAY=09 says which check fails.\n", name,
               run.error ? run.error : "results differ from the original's");
        return 0;
    }
    double gpu_ms = gpu_update_particles_milliseconds(soa, GPU_N, REPEATS);
    if (gpu_ms > 0)   /* the six fields read and written: the bytes the update needs */
        snprintf(measured, sizeof measured, "%.1f", 2.0 * 6 * 4 * GPU_N / (gpu_ms * 1e-3) / 1e9);
    if (run.counted) {
        printf("%-8s %6d %6s   %12.2f  %13.2f  %10.3f  %7s\n", name, stride, "", run.load_sectors_per_request,
               run.store_sectors_per_request, run.load_efficiency, model_text);
        lab_results_row_or_exit(out, "%s,%d,,%.4f,%.4f,%.4f,%s,,%s", name, stride, run.load_sectors_per_request,
                        run.store_sectors_per_request, run.load_efficiency, model_text, measured);
    } else {
        printf("%-8s  measured on this GPU: %s GB/s of the six fields read and written\n", name, measured);
        lab_results_row_or_exit(out, "%s,%d,,,,,%s,,%s", name, stride, model_text, measured);
    }
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    lab_table *gpus = lab_table_read_or_exit(lab_data_path("gpus.csv"));
    int h100 = lab_table_find(gpus, "key", "h100-sxm");
    double bandwidth = lab_table_number_or_exit(gpus, h100, "memory_bandwidth_gb_per_s");
    printf("Copying n = %d floats, blocks of %d threads; the H100 SXM moves %.0f GB/s of sectors (data/gpus.csv).\n\n",
           N, THREADS, bandwidth);
    print_header();

    int longest = strides[STRIDES - 1];
    long long in_elements = copy_input_elements(N, longest, MAX_OFFSET);
    float *in = malloc(sizeof(float) * (size_t)in_elements), *copied = malloc(sizeof(float) * N);
    for (long long i = 0; i < in_elements; i++) in[i] = (float)i;
    lab_results out = lab_results_open_or_exit(argv[1], "case,stride,offset,load_sectors_per_request,store_sectors_per_request,"
                                            "load_efficiency,model_sectors_per_request,h100_predicted_gb_per_s,"
                                            "measured_gpu_gb_per_s");
    int written = 0, runs = 0;
    for (int s = 0; s < STRIDES; s++, runs++) written += copy_row(&out, "stride", strides[s], 0, in, copied, bandwidth);
    for (int offset = 0; offset <= MAX_OFFSET; offset++, runs++)
        written += copy_row(&out, "offset", 1, offset, in, copied, bandwidth);

    particle *start = malloc(sizeof(particle) * N), *want = malloc(sizeof(particle) * N);
    make_particles(start, N);
    memcpy(want, start, sizeof(particle) * N);
    access_run original = gpu_update_particles_aos(want, N, DT, THREADS, 0);
    if (original.error)
        printf("the original AoS update failed (%s): the driver or the simulator is broken\n", original.error);
    written += particle_row(&out, "aos", 0, start, want);
    written += particle_row(&out, "soa", 1, start, want);
    runs += 2;
    lab_results_close_or_exit(&out);

    printf("\nSectors and efficiency are counted on the simulator (every lane, every access); the H100 column is\n"
           "predicted from them, not measured. %d of %d runs right so far.\n", written, runs);
    lab_table_free(gpus);
    free(in), free(copied), free(start), free(want);
    return 0;
}
