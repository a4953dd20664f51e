/* The kohaku subcommands: one file each (cmd_NAME.c), one row in KH_CMDS
 * below (main.c builds its table and usage from it). */
#ifndef KOHAKU_CMDS_H
#define KOHAKU_CMDS_H

/* Each returns the process exit status: 0 ok, 1 check failed or input
 * refused, 2 usage error (../shared/cli.md). argv[0] is the subcommand. */
#define KH_CMDS(X)                                                              \
    X(flit, "encode or decode one flit (flits.md)")                           \
    X(asm, "assemble a unit program into words")                              \
    X(dis, "disassemble words of a unit program")                             \
    X(isa, "list layouts; emit a C header, Verilog decode or markdown table") \
    X(mesh, "parse a map picture or machine file and print the machine")     \
    X(run, "run a host session on a machine, or resume one (--restore)")      \
    X(replay, "replay recorded RTL vectors (quant, cluster, saxpy, vector)")  \
    X(quant, "quantise one FP16 entry to MXFP7 (transform occupant 1)")       \
    X(gemm, "run a checked GEMM on the default machine (or --map MAP)")       \
    X(bench, "measure simulator speed (noc, gemm)")                           \
    X(params, "list the machine parameters: values, enforced ranges, sources") \
    X(cpu, "run an RV32 program on the node processor, or (--isa rv64) RV64") \
    X(demo, "the default demo (what `make run` runs)")                       \
    X(serve, "speak upstream's simulated-card line protocol on stdin/stdout") \
    X(report, "print the end-of-run report of a saved stats file")

#define KH_DECLARE_CMD(name, help) int kh_cmd_##name(int argc, char **argv);
KH_CMDS(KH_DECLARE_CMD)
#undef KH_DECLARE_CMD
/* `kohaku replay vector2 ...` (cmd_replay_v2.c); argv[0] is "vector2". */
int kh_cmd_replay_vector2(int argc, char **argv);

/* `kohaku cpu run --isa rv64 ...` (cmd_cpu64.c), entered from kh_cmd_cpu */
int kh_cmd_cpu_rv64(int argc, char **argv);

#endif
