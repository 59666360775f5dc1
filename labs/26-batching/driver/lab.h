/* lab.h — Day 26: the interface between your scheduler, the serving simulator (sim.c), the
 * request trace (trace.c), the driver and the tests. Driver file: do not edit.
 *
 * The picture: an engine runs one iteration (a step) at a time. Before each step it asks the
 * scheduler for the step's batch: which requests run, and whether each runs its prefill (the
 * whole prompt, giving the first output token) or one decode (one more token). The step takes
 * as long as the roofline says (step_seconds), every request of the batch gets one token, and
 * the clock moves on. Nothing here is a GPU time: each step's cost is predicted by the roofline
 * of a row of data/gpus.csv; the simulator only adds the steps up (counted). */
#ifndef DAY26_LAB_H
#define DAY26_LAB_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the trace ---- */
typedef struct request {
    double arrival_s;       /* when it reaches the server */
    int prompt_tokens;      /* its prompt, run in one prefill */
    int output_tokens;      /* tokens it generates, the first from the prefill; >= 1 */
} request;

/* ---- the cost of one step (scheduler.c, yours) ---- */
typedef struct cost_model {
    double weights_bytes;         /* every weight, read once per step whatever the batch */
    double kv_bytes_per_token;    /* one token's keys and values, all layers */
    double flops_per_token;       /* one token through every matrix of the model */
    double peak_flop_per_s;       /* the compute ceiling */
    double bandwidth_byte_per_s;  /* the memory slope */
} cost_model;

/* One request's share of a step. */
typedef struct sequence_work {
    int new_tokens;   /* tokens run through the model: its prompt at prefill, 1 at decode */
    int kv_tokens;    /* KV-cache entries the step reads or writes for it: its whole context,
                         the new tokens included */
} sequence_work;

/* The least time a step of `sequences` requests can take (the roofline): the weights once, each
 * request's KV entries once, FLOPs for every new token. 0 for an empty step. */
double step_seconds(const cost_model *model, const sequence_work *work, int sequences);

/* ---- the scheduler ---- */
typedef struct scheduler {
    /* set by the simulator, read by the scheduler */
    const request *requests;
    int request_count;
    long kv_budget_tokens;   /* KV slots in all: the running requests' reservations may not exceed it */
    int max_batch;           /* requests running at once, at most */
    const int *generated;    /* generated[id]: output tokens request id has been given so far */
    /* the queue: requests that have arrived and are not admitted, oldest first. The simulator
     * appends at waiting_tail; the scheduler admits from waiting_head (waiting_head++). */
    const int *waiting;
    int waiting_head, waiting_tail;
    /* the scheduler's own */
    int *running;            /* requests admitted and not finished (room for max_batch) */
    int running_count;
    long kv_reserved_tokens; /* sum of prompt + output tokens over running */
} scheduler;

/* One request of a step's batch. */
typedef struct batch_entry {
    int request;
    int prefill;   /* 1: its prompt, giving output token 0; 0: one decode, giving the next token */
} batch_entry;

/* A scheduler: called before every step; writes the step's batch into batch[] (room for
 * max_batch) and returns its size. 0 with requests waiting and none running is a scheduler
 * that is stuck; 0 with nothing waiting lets the clock jump to the next arrival. */
typedef int (*scheduler_policy)(scheduler *s, batch_entry *batch);

/* Iteration-level (continuous) batching, after Orca (scheduler.c, yours). */
int continuous_next_batch(scheduler *s, batch_entry *batch);
/* Static batching (sim.c, given): a batch is admitted only when nothing runs and keeps its KV
 * reservations (one padded tensor) until its longest request is done, while new arrivals wait;
 * its finished requests drop out of the steps. */
int static_next_batch(scheduler *s, batch_entry *batch);

/* Static batching's idle share, derived from the lengths alone (scheduler.c, yours): `count`
 * requests admitted together, request i making output_tokens[i] tokens (>= 1), one a step; the
 * batch holds its `count` request-slots until its longest request is done. The share of those
 * slots, over all the batch's steps, in which no token is made (0 when every request is as long as
 * the longest). -1 for count < 1 or a length below 1. The tests count it from static_next_batch's
 * token log. */
double static_idle_share(const int *output_tokens, int count);

/* ---- the simulator (sim.c) ---- */
/* One token given to a request, in the order they were given. */
typedef struct token_event {
    int step;
    int request;
    int token;     /* its index among the request's output tokens: 0, 1, ... */
    int prefill;   /* 1 when it came from a prefill */
} token_event;

typedef struct step_record {
    double start_s, end_s;
    int first_event, events;      /* its tokens: events[first_event .. first_event + events - 1] */
} step_record;

typedef struct simulation {
    token_event *events;  int event_count;
    step_record *steps;   int step_count;
    /* per request: when its first and last token came (end of that step), -1 if never */
    double *first_token_s, *finish_s;
    const char *error;    /* NULL, or why the run stopped: a scheduler that is stuck or loops */
    char error_text[256];
} simulation;

typedef struct serving_limits {
    long kv_budget_tokens;
    int max_batch;
} serving_limits;

/* What a step costs: step_seconds, or the tests' own copy of the roofline. */
typedef double (*step_cost)(const cost_model *model, const sequence_work *work, int sequences);

/* Runs the trace (sorted by arrival) through `policy` until every request has all its tokens,
 * or the scheduler is stuck, or max_steps steps have run. Each step lasts cost(...) of its
 * batch. Deterministic: no clock is read. */
simulation simulate(const request *requests, int request_count, scheduler_policy policy, step_cost cost,
                    const cost_model *model, serving_limits limits, int max_steps);
void free_simulation(simulation *run);

/* What a user sees, over the requests that finished. TTFT: first token - arrival; TPOT: (last
 * token - first token) / (output tokens - 1), one mean per request of 2 tokens or more; ITL
 * (inter-token latency): each token after a request's first, the time since its previous token,
 * all such gaps of all requests pooled, as serving benchmarks report it; a prefill that stalls
 * a decode shows as one long gap in ITL, averaged away in that request's TPOT. Percentiles by
 * nearest rank. Throughput: output tokens / (last finish - first arrival). */
typedef struct serving_metrics {
    double tokens_per_s, requests_per_s;
    double ttft_p50_s, ttft_p99_s, tpot_p50_s, tpot_p99_s;
    double itl_p50_s, itl_p99_s;
    double mean_batch;    /* requests per step, averaged over steps */
    double makespan_s;
} serving_metrics;
serving_metrics measure_simulation(const request *requests, int request_count, const simulation *run);

/* ---- the trace (trace.c) ---- */
enum { TRACE_REQUESTS = 1000, TRACE_SEED = 26, LONGEST_PROMPT = 1024, LONGEST_OUTPUT = 1024 };
#define TRACE_RATE_PER_S 32.0     /* the shipped trace's mean arrival rate, requests/s */
#define TRACE_FILE "requests-sharegpt-like.csv"
/* The shipped trace's generator: Poisson arrivals at `rate_per_s`; prompt and output lengths
 * exponential with ShareGPT's means (161 and 338 tokens, Kwon et al. 2023), clamped to
 * 1..LONGEST_PROMPT and 1..LONGEST_OUTPUT; a splitmix64 stream from `seed`. */
void generate_trace(unsigned long long seed, int count, double rate_per_s, request *out);
/* Reads data/NAME (columns arrival_s, prompt_tokens, output_tokens); returns the count, or -1 with
 * the reason in `error`. *out is malloc'ed. */
int load_trace(const char *file_name, request **out, char *error, unsigned long error_size);
/* The same trace with every arrival time divided by `speedup` (twice the rate at 2). */
void scale_arrivals(const request *in, int count, double speedup, request *out);

/* Llama-2-7B in FP16 on an H100 SXM (data/models.csv, data/gpus.csv, lib/perfmodel), and the KV
 * budget it leaves: the book's one budget, PERFMODEL_MEMORY_UTILIZATION (0.9, vLLM's default) of
 * the memory, less the weights, in tokens. The
 * batch limit is vLLM's default max_num_seqs. Returns 0, or -1 with the reason. */
enum { SERVING_MAX_BATCH = 256 };
int serving_setup(cost_model *model, serving_limits *limits, char *error, unsigned long error_size);

#ifdef __cplusplus
}
#endif

#endif
