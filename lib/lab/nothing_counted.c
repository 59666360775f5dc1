/* nothing_counted.c — the simulator's metrics calls as a GPU build sees them (lib/lab/sim_counts.h):
 * nothing is counted on a GPU, where Nsight Compute measures the same quantities, so each call does
 * nothing, counts nothing and estimates nothing. Weak: on the simulator, libsim's own definitions
 * (lib/sim/metrics.c) are the ones linked, whatever the order of the archives. */
#include "../sim/include/sim_metrics.h"

__attribute__((weak)) void sim_metrics_enable(int on) { (void)on; }
__attribute__((weak)) int sim_metrics_count(void) { return 0; }
__attribute__((weak)) const sim_launch_metrics *sim_metrics_get(int index) { (void)index; return 0; }
__attribute__((weak)) void sim_metrics_clear(void) {}
__attribute__((weak)) void sim_declare_flops(double flops) { (void)flops; }
__attribute__((weak)) double sim_sectors_per_request(const sim_launch_metrics *m, int stores) { (void)m, (void)stores; return 0; }
__attribute__((weak)) double sim_wavefronts_per_request(const sim_launch_metrics *m, int stores) { (void)m, (void)stores; return 0; }
__attribute__((weak)) double sim_simt_efficiency(const sim_launch_metrics *m) { (void)m; return 0; }
__attribute__((weak)) double sim_roofline_estimate_seconds(const sim_launch_metrics *m, const char *gpu_key, const char **bound)
{
    (void)m, (void)gpu_key, (void)bound;
    return -1;
}
__attribute__((weak)) void sim_metrics_print(FILE *out, const sim_launch_metrics *m) { (void)out, (void)m; }
__attribute__((weak)) sim_event_span sim_last_event_span(void) { sim_event_span none = {0, 0, 0}; return none; }
