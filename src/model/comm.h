/* What a communication kernel is: which collective (or point-to-point transfer), of which
 * process group, how many elements, which call of the group. The job report matches a
 * rank's collectives to its peers' by this identity, not by their position in the trace.
 *
 * The trace says it in several ways, read best first:
 *   1. the kernel's own args (PyTorch 2.x Kineto traces: "Collective name", "In msg
 *      nelems", "Process Group Name", "Process Group Ranks", "Seq", a send's "Dst Rank"
 *      and a recv's "Src Rank"), and the args of the
 *      record_param_comms operator around its launch: struct kg_comm_call, by correlation
 *      or by the launching thread and time;
 *   2. the collective call around its launch on the launching thread: a Kineto
 *      `nccl:all_reduce` annotation (with its "Input Dims"), an NVTX range of NCCL's or
 *      the user's with such a name;
 *   3. the kernel's name (ncclDevKernel_AllGather_RING_LL...): the kind only. A SendRecv
 *      kernel is NCCL's point-to-point engine, which all-to-all also uses: without a
 *      call around it, it could be either.
 *
 *   struct kg_comm_id *ids; uint32_t n;
 *   comm_identify(m, &ids, &n);           one per communication kernel, by op index
 *   const struct kg_comm_id *c = comm_id_of(ids, n, op_index);
 */
#ifndef KGANTT_COMM_H
#define KGANTT_COMM_H

#include <stddef.h>
#include <stdint.h>

struct kg_model;

/* What a communication kernel does, one list for every use (the job's matching, the
 * per-kind overlap figures, the report's words): X(ID, "name", CLASS), NCCL's names. CLASS
 * COLL a collective every rank of its group joins with the same message (sizes compare),
 * COLLV one whose per-rank sizes may differ, P2P a transfer between two ranks, ANY unknown.
 * OTHER first: a kind nothing set is unknown. */
#define KG_COMM_KINDS(X)                                                                     \
	X(OTHER, "other", ANY)                                                               \
	X(ALL_REDUCE, "AllReduce", COLL)                                                     \
	X(ALL_GATHER, "AllGather", COLL)                                                     \
	X(REDUCE_SCATTER, "ReduceScatter", COLL)                                             \
	X(BROADCAST, "Broadcast", COLL)                                                      \
	X(REDUCE, "Reduce", COLL)                                                            \
	X(BARRIER, "Barrier", COLL)                                                          \
	X(ALL_TO_ALL, "AllToAll", COLLV)                                                     \
	X(SEND, "Send", P2P)                                                                 \
	X(RECV, "Recv", P2P)                                                                 \
	X(SEND_RECV, "SendRecv", P2P) /* NCCL's SendRecv kernel without a call around it */

enum kg_comm_kind {
#define KG_COMM_ENUM_(id, name, cls) KG_COMM_##id,
	KG_COMM_KINDS(KG_COMM_ENUM_)
#undef KG_COMM_ENUM_
	KG_COMM_KIND_COUNT
};

enum kg_comm_class { KG_COMM_CLASS_ANY, KG_COMM_CLASS_COLL, KG_COMM_CLASS_COLLV, KG_COMM_CLASS_P2P };

const char *comm_kind_name(enum kg_comm_kind k);
enum kg_comm_class comm_kind_class(enum kg_comm_kind k);
/* The kind a name says: a PyTorch call or annotation ("nccl:all_reduce",
 * "_all_gather_base", "c10d::allreduce_", "all_to_all_single"), a "Collective name" arg
 * ("allreduce", "all_gather"), an NCCL API name or NVTX range ("ncclAllReduce"), or a
 * kernel name ("ncclDevKernel_ReduceScatter_Sum_f32_RING_LL", "ncclKernel_SendRecv_...").
 * KG_COMM_OTHER when it says none. */
enum kg_comm_kind comm_kind_of_name(const char *name);

/* 1 when a host operator or annotation of that name is a communication call, whose args
 * (when it has them) say which collective, its size and group: PyTorch's
 * record_param_comms, its nccl:* annotations and c10d:: operators. */
int comm_call_named(const char *name, size_t len);

/* What a reader found about a communication call, before kernels are matched to it
 * (model.comm_calls). By correlation (the kernel's own args: thread KG_NONE) or by the
 * thread and the time of the call that launched the kernel. */
struct kg_comm_call {
	int64_t start, end;   /* the host call's span; unused by correlation */
	uint32_t process;     /* index into processes */
	uint32_t thread;      /* index into threads, KG_NONE: by correlation */
	uint32_t correlation; /* the kernel's, 0 none */
	uint32_t group;       /* string id: "NAME [ranks]" of its process group, 0 unknown */
	uint64_t elems;       /* message elements, 0 unknown */
	int64_t seq;          /* the group's sequence number of the call, -1 unknown */
	uint8_t kind;         /* enum kg_comm_kind */
	uint8_t pad[3];
	int32_t peer;         /* a send's or recv's peer, its global rank ("Dst Rank", "Src
			       * Rank"); -1 unknown */
};

/* A communication kernel's identity, as far as the trace says. */
struct kg_comm_id {
	uint32_t op;          /* index into ops */
	uint32_t group;       /* string id, 0 unknown */
	uint64_t elems;       /* 0 unknown */
	int64_t seq;          /* -1 unknown */
	uint8_t kind;         /* enum kg_comm_kind */
	uint8_t from_call;    /* 1: a host call or the kernel's args said the kind; 0: its name */
	uint8_t name_kind;    /* what the kernel's name alone says: the per-kind overlap
			       * figures, which compare with other tools' by name */
	uint8_t pad;
	int32_t peer;         /* a send's or recv's peer (global rank), -1 unknown */
};

/* One kg_comm_id per kernel flagged KG_OPF_COMM, by op index (*ids NULL when there is
 * none). 0 or -ENOMEM. The analysis makes them once (kg_analysis.comm_ids). */
int comm_identify(const struct kg_model *m, struct kg_comm_id **ids, uint32_t *n);
const struct kg_comm_id *comm_id_of(const struct kg_comm_id *ids, uint32_t n, uint32_t op);

#endif
