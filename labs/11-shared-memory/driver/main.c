/* main.c — Day 11 driver: what shared-memory banks cost a matrix transpose. Do not edit.
 *
 *   build/11-shared-memory/labs-sim/lab RESULTS.csv     (make check DAY=11 runs it)
 *
 * Two tables in one CSV, told apart by the first column:
 *   kind=stride   lane k of one warp reads shared word k * stride, for stride 0 .. 64:
 *                 the wavefronts your bank_conflict_ways predicts, and (on the simulator) the
 *                 wavefronts the simulator counts.
 *   kind=tile     your predicted_tile_wavefronts for a tile whose rows are x words long
 *                 (x = 32 .. 64), in predicted_ways, and (on the simulator) the wavefronts it
 *                 counts moving one tile through such rows, in counted_ways: per tile, not
 *                 per request.
 *   kind=version  each transpose of a 512 x 384 matrix, checked element by element first (a
 *                 version that is not right yet is left out); then, on the simulator, what
 *                 was counted: shared wavefronts per request for loads (the tile's columns)
 *                 and stores (its rows), the worst request, and the global load and store
 *                 efficiency (bytes asked for / bytes of the 32-byte sectors moved). On a real
 *                 GPU the counted columns are empty and a 8192 x 8192 transpose is timed
 *                 instead (median of 20 runs).
 * Columns: kind,x,name,predicted_ways,counted_ways,shared_load_wavefronts_per_request,
 *   shared_store_wavefronts_per_request,max_bank_conflict_ways,global_load_efficiency,
 *   global_store_efficiency,measured_gpu_us,measured_gpu_gb_per_s */
#include "compare.h"
#include "lab.h"
#include "results.h"

#include <stdio.h>
#include <stdlib.h>

enum { ROWS = 512, COLS = 384, TIMED_SIDE = 8192, REPEATS = 20, MAX_STRIDE = 64 };

static const char *names[TRANSPOSE_VERSIONS + 1] = {"", "naive", "tile", "padded tile", "swizzled tile"};

static void sweep_strides(lab_results *out)
{
    int disagreements = 0;
    printf("The bank model: lane k reads shared word k * stride.\n"
           "stride  predicted  counted (wavefronts per request)\n");
    for (int stride = 0; stride <= MAX_STRIDE; stride++) {
        int words[32];
        for (int lane = 0; lane < 32; lane++) words[lane] = lane * stride;
        int predicted = bank_conflict_ways(words, 32), counted = counted_bank_conflict_ways(words, 32);
        char counted_text[16] = "";
        if (counted >= 0) snprintf(counted_text, sizeof counted_text, "%d", counted);
        disagreements += counted >= 0 && predicted != counted;
        if (stride <= 4 || stride % 8 == 0 || stride == 31 || stride == 33)
            printf("%6d  %9d  %s\n", stride, predicted, counted >= 0 ? counted_text : "(not counted on a GPU)");
        lab_results_row_or_exit(out, "stride,%d,,%d,%s,,,,,,,", stride, predicted, counted_text);
    }
    if (disagreements)
        printf("Your model disagrees with the simulator at %d of %d strides: make check DAY=11 says where.\n",
               disagreements, MAX_STRIDE + 1);
    printf("\n");
}

static void predict_tiles(lab_results *out)
{
    int disagreements = 0;
    printf("Your prediction: shared wavefronts to move one %d x %d tile, written by rows and read by columns.\n"
           "row words  predicted  counted (wavefronts per tile)\n", TILE, TILE);
    for (int row_words = TILE; row_words <= PROBE_MAX_ROW_WORDS; row_words++) {
        int predicted = predicted_tile_wavefronts(row_words), counted = counted_tile_wavefronts(row_words);
        char counted_text[16] = "";
        if (counted >= 0) snprintf(counted_text, sizeof counted_text, "%d", counted);
        disagreements += counted >= 0 && predicted != counted;
        if (row_words <= 36 || row_words % 8 == 0)
            printf("%9d  %9d  %s\n", row_words, predicted, counted >= 0 ? counted_text : "(not counted on a GPU)");
        lab_results_row_or_exit(out, "tile,%d,,%d,%s,,,,,,,", row_words, predicted, counted_text);
    }
    if (disagreements)
        printf("Your prediction disagrees with the simulator for %d row lengths: make check DAY=11 says where.\n",
               disagreements);
    printf("\n");
}

static void measure_versions(lab_results *out)
{
    size_t n = (size_t)ROWS * COLS;
    float *in = malloc(n * sizeof(float)), *want = malloc(n * sizeof(float)), *got = malloc(n * sizeof(float));
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) {
            in[(size_t)r * COLS + c] = (float)((size_t)r * COLS + c) + 0.5f;
            want[(size_t)c * ROWS + r] = in[(size_t)r * COLS + c];
        }
    printf("Transposing a %d x %d matrix of floats, blocks of %d x %d threads, one %d x %d tile each.\n", ROWS, COLS,
           TILE, BLOCK_ROWS, TILE, TILE);
    printf("version            shared wavefronts/request  worst   global efficiency\n"
           "                   loads      stores          ways    loads     stores\n");
    int written = 0;
    for (int v = 1; v <= TRANSPOSE_VERSIONS; v++) {
        transpose_run run = gpu_transpose(v, in, got, ROWS, COLS, 1);
        lab_comparison result = lab_compare_floats("out", got, want, n, 0, 0);
        if (run.error || result.mismatches || run.written_past_end) {
            printf("%d %-16s not right yet (%s): not measured. make check DAY=11 says which check fails.\n", v,
                   names[v], run.error ? run.error : result.mismatches ? "wrong elements" : "wrote past the end");
            continue;
        }
        double gpu_ms = gpu_transpose_milliseconds(v, TIMED_SIDE, TIMED_SIDE, REPEATS);
        if (run.counted) {
            printf("%d %-16s %6.2f     %6.2f          %4u    %5.1f %%   %5.1f %%\n", v, names[v],
                   run.shared_load_wavefronts_per_request, run.shared_store_wavefronts_per_request,
                   run.max_bank_conflict_ways, 100 * run.global_load_efficiency, 100 * run.global_store_efficiency);
            lab_results_row_or_exit(out, "version,%d,\"%s\",,,%.4f,%.4f,%u,%.4f,%.4f,,", v, names[v],
                            run.shared_load_wavefronts_per_request, run.shared_store_wavefronts_per_request,
                            run.max_bank_conflict_ways, run.global_load_efficiency, run.global_store_efficiency);
        } else {
            double bytes = 2.0 * sizeof(float) * TIMED_SIDE * (double)TIMED_SIDE;
            printf("%d %-16s measured on this GPU, %d x %d: %.1f us, %.0f GB/s read + written\n", v, names[v],
                   TIMED_SIDE, TIMED_SIDE, gpu_ms * 1e3, bytes / (gpu_ms * 1e-3) / 1e9);
            lab_results_row_or_exit(out, "version,%d,\"%s\",,,,,,,,%.3f,%.1f", v, names[v], gpu_ms * 1e3,
                            bytes / (gpu_ms * 1e-3) / 1e9);
        }
        written++;
    }
    printf("\nCounted on the simulator (every warp, every access), not timed. %d of %d versions right so far.\n",
           written, TRANSPOSE_VERSIONS);
    free(in), free(want), free(got);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RESULTS.csv\n", argv[0]);
        return 2;
    }
    lab_results out = lab_results_open_or_exit(argv[1], "kind,x,name,predicted_ways,counted_ways,"
                                        "shared_load_wavefronts_per_request,shared_store_wavefronts_per_request,"
                                        "max_bank_conflict_ways,global_load_efficiency,global_store_efficiency,"
                                        "measured_gpu_us,measured_gpu_gb_per_s");
    sweep_strides(&out);
    predict_tiles(&out);
    measure_versions(&out);
    lab_results_close_or_exit(&out);
    return 0;
}
