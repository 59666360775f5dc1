/* perfmodel.c — the performance model's command line (lib/perfmodel/perfmodel.h says what
 * it computes). Built by `make build/tools/perfmodel`; run through tools/perfmodel.
 *
 *   tools/perfmodel --model Llama-2-70B --hardware h100-sxm --weights fp16
 *   tools/perfmodel --model Llama-2-7B --hardware a100-80gb --batch 32 --prompt 1024 --gen 256 --json
 *   tools/perfmodel --shape 15M --hardware cpu --weights fp32     (this machine, measured)
 *   tools/perfmodel --checkpoint model.bin --hardware cpu
 *   tools/perfmodel --model Llama-2-7B --prompt 4096 --ttft-ms 2000 --tpot-ms 200   (a looser target) */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfmodel.h"

typedef struct {
    const char *model, *checkpoint, *shape, *hardware, *weights, *kv;
    int batch, prompt, gen, json;
    double bandwidth_gb_per_s, peak_tflops;
    perfmodel_targets targets;
} Options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: tools/perfmodel (--model NAME | --checkpoint FILE | --shape NAME) [options]\n"
            "\n"
            "Predicts a model's memory budget, TTFT, TPOT and throughput on a GPU or this CPU (roofline bounds).\n"
            "\n"
            "  --model NAME           a model of data/models.csv (e.g. Llama-2-7B)\n"
            "  --checkpoint FILE      the shape in a llama2.c checkpoint's header\n"
            "  --shape NAME           a named shape of the engine: %s\n"
            "  --hardware NAME        a GPU of data/gpus.csv by key or name (default h100-sxm), or cpu: this\n"
            "                         machine, one core, bandwidth and FLOP/s measured now (--gpu is the same)\n"
            "  --weights TYPE         fp32, fp16, bf16, fp8, int8 or int4 (default fp16 on a GPU, fp32 on cpu)\n"
            "  --kv TYPE              the KV cache's type (default fp16 on a GPU, fp32 on cpu)\n"
            "  --batch N              sequences served together (default 1)\n"
            "  --prompt N             prompt tokens per sequence (default 128)\n"
            "  --gen N                generated tokens per sequence (default 128)\n"
            "  --bandwidth GB/s       use this memory bandwidth instead of the table's or the measured one\n"
            "                         (0.1 to 100000)\n"
            "  --peak-tflops T        use this peak instead of the table's or the measured one (0.0001 to 100000)\n"
            "  --ttft-ms MS           the TTFT target the next steps are judged against (default %g, 0.001 to 1e6)\n"
            "  --tpot-ms MS           the TPOT target (default %g, 0.001 to 1e6): a latency row of the checklist\n"
            "                         shows only when its target is missed\n"
            "  --json                 one JSON object instead of lines\n"
            "  --help                 this text\n",
            llama_named_shape_list(), PERFMODEL_INTERACTIVE_TTFT_S * 1e3, PERFMODEL_INTERACTIVE_TPOT_S * 1e3);
}

static void die(const char *message)
{
    fprintf(stderr, "perfmodel: %s\n", message);
    exit(2);
}

static int parse_count(const char *option, const char *text)
{
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (!*text || *end || errno || value < 1 || value > INT_MAX / 2) {
        fprintf(stderr, "perfmodel: %s takes a whole number >= 1, not '%s'\n", option, text);
        exit(2);
    }
    return (int)value;
}

/* A number within [smallest, largest]: the physical range of what the option describes. */
static double parse_within(const char *option, const char *text, double smallest, double largest, const char *range)
{
    char *end;
    double value = strtod(text, &end);
    if (!*text || *end || !(value >= smallest && value <= largest)) {
        fprintf(stderr, "perfmodel: %s takes a number from %g to %g (%s), not '%s'\n", option, smallest, largest, range, text);
        exit(2);
    }
    return value;
}

/* the options that take a value; an option not here and not a flag is unknown */
static const char *const valued_options[] = {
    "--model", "--checkpoint", "--shape", "--hardware",  "--gpu",         "--weights", "--kv",
    "--batch", "--prompt",     "--gen",   "--bandwidth", "--peak-tflops", "--ttft-ms", "--tpot-ms",
};

static int takes_value(const char *option)
{
    for (size_t i = 0; i < sizeof valued_options / sizeof valued_options[0]; i++)
        if (!strcmp(option, valued_options[i])) return 1;
    return 0;
}

static Options parse_options(int argc, char **argv)
{
    Options o = {.hardware = "h100-sxm",
                 .batch = 1,
                 .prompt = 128,
                 .gen = 128,
                 .targets = {PERFMODEL_INTERACTIVE_TTFT_S, PERFMODEL_INTERACTIVE_TPOT_S}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) usage(stdout), exit(0);
        else if (!strcmp(a, "--json")) o.json = 1;
        else if (!takes_value(a)) {
            fprintf(stderr, "perfmodel: unknown option '%s' (see --help)\n", a);
            exit(2);
        } else if (!value) {
            fprintf(stderr, "perfmodel: %s needs a value (see --help)\n", a);
            exit(2);
        }
        else if (!strcmp(a, "--model")) o.model = value, i++;
        else if (!strcmp(a, "--checkpoint")) o.checkpoint = value, i++;
        else if (!strcmp(a, "--shape")) o.shape = value, i++;
        else if (!strcmp(a, "--hardware") || !strcmp(a, "--gpu")) o.hardware = value, i++;
        else if (!strcmp(a, "--weights")) o.weights = value, i++;
        else if (!strcmp(a, "--kv")) o.kv = value, i++;
        else if (!strcmp(a, "--batch")) o.batch = parse_count(a, value), i++;
        else if (!strcmp(a, "--prompt")) o.prompt = parse_count(a, value), i++;
        else if (!strcmp(a, "--gen")) o.gen = parse_count(a, value), i++;
        else if (!strcmp(a, "--bandwidth"))
            o.bandwidth_gb_per_s = parse_within(a, value, 0.1, 1e5, "GB/s: from a slow embedded core to over 10x the "
                                                "fastest GPU memory of today, about 8000 GB/s"), i++;
        else if (!strcmp(a, "--ttft-ms"))
            o.targets.ttft_s =
                1e-3 * parse_within(a, value, 1e-3, 1e6, "milliseconds: a microsecond to a quarter of an hour"),
            i++;
        else if (!strcmp(a, "--tpot-ms"))
            o.targets.tpot_s =
                1e-3 * parse_within(a, value, 1e-3, 1e6, "milliseconds: a microsecond to a quarter of an hour"),
            i++;
        else
            o.peak_tflops = parse_within(a, value, 1e-4, 1e5, "TFLOP/s: from 0.1 GFLOP/s, a slow embedded core, to "
                                         "20x the dense FP8 peak of today's largest GPU, about 4500"), i++;
    }
    if ((o.model != NULL) + (o.checkpoint != NULL) + (o.shape != NULL) != 1)
        die("give one model: --model NAME, --checkpoint FILE or --shape NAME (see --help)");
    return o;
}

static perfmodel_dtype parse_type(const char *option, const char *name)
{
    perfmodel_dtype type;
    if (perfmodel_parse_dtype(name, &type) != 0) {
        fprintf(stderr, "perfmodel: %s is one of fp32, fp16, bf16, fp8, int8, int4, not '%s'\n", option, name);
        exit(2);
    }
    return type;
}

int main(int argc, char **argv)
{
    Options o = parse_options(argc, argv);
    char error[2048];

    perfmodel_shape model;
    if (o.model) {
        if (perfmodel_load_model_shape(o.model, &model, error, sizeof error) != 0) die(error);
    } else {
        llama_config config;
        if (o.checkpoint && llama_read_checkpoint_config(o.checkpoint, &config, NULL, error, sizeof error) != 0) die(error);
        if (o.shape && llama_named_shape(o.shape, &config, error, sizeof error) != 0) die(error);
        perfmodel_shape_from_config(&config, o.checkpoint ? o.checkpoint : o.shape, &model);
    }

    int cpu = !strcmp(o.hardware, "cpu");
    perfmodel_hardware hardware;
    if (!cpu && perfmodel_load_gpu(o.hardware, &hardware, error, sizeof error) != 0) die(error);
    perfmodel_workload workload = {.weights = parse_type("--weights", o.weights ? o.weights : cpu ? "fp32" : "fp16"),
                         .kv = parse_type("--kv", o.kv ? o.kv : cpu ? "fp32" : "fp16"),
                         .batch = o.batch, .prompt = o.prompt, .gen = o.gen};
    if (perfmodel_validate_workload(&model, &workload, error, sizeof error) != 0) die(error);

    perfmodel_prediction e;
    if (cpu) {
        /* measure the bandwidth over the bytes a decode step reads: estimate once to know them */
        perfmodel_hardware placeholder = {.is_cpu = 1, .bandwidth = 1, .fp32_flops = 1, .dequantizing_flops = 1, .memory_bytes = 1};
        perfmodel_estimate(&model, &placeholder, &workload, &e);
        perfmodel_measure_cpu(&hardware, (size_t)e.decode_step_bytes);
    }
    if (o.bandwidth_gb_per_s > 0) hardware.bandwidth = o.bandwidth_gb_per_s * 1e9;
    if (o.peak_tflops > 0)
        hardware.fp32_flops = hardware.fp16_tensor_flops = hardware.bf16_tensor_flops = hardware.fp8_tensor_flops =
            hardware.dequantizing_flops = o.peak_tflops * 1e12;
    perfmodel_estimate(&model, &hardware, &workload, &e);
    if (o.json) perfmodel_print_estimate_json(stdout, &e);
    else
        perfmodel_print_estimate_text(stdout, &model, &hardware, &workload, &e, &o.targets);
    return 0;
}
