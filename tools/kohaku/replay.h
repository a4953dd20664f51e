/* Replays of recorded RTL vectors (../shared/vectors/README.md). */
#ifndef KOHAKU_REPLAY_H
#define KOHAKU_REPLAY_H

typedef struct kh_replay_opts {
    int rtl_compat;          /* --rtl-compat */
    int verbose;
    const char *trace_file;  /* --trace */
    const char *stats_file;  /* --stats */
    struct kh_checkout *check; /* --check: the live flit checker's report (simout.h), NULL: off */
} kh_replay_opts;

/* Each returns the exit status: 0 all passed, 1 a case failed or the file
 * was refused, 2 usage. Output per ../shared/cli.md `kohaku replay`. */
int kh_replay_quant(const char *file, const kh_replay_opts *o);
int kh_replay_cluster(const char *file, const kh_replay_opts *o);
int kh_replay_saxpy(const char *file, const kh_replay_opts *o);
int kh_replay_vector(const char *file, const kh_replay_opts *o);

#endif
