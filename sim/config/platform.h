/*
 * sim/config/platform.h: a cluster description loaded from platform JSON.
 *
 * Quantities are stored in SI base units with the unit in the name (bytes per second,
 * seconds, flop per second). The loader is strict: unknown keys, wrong types, missing
 * required keys, unparsable or non-positive quantities are errors naming the file and
 * the JSON path. See docs/formats.md for the file format.
 */
#ifndef GCSIM_CONFIG_PLATFORM_H
#define GCSIM_CONFIG_PLATFORM_H

#include <stdbool.h>

#include "gcsim_error.h"

typedef enum { INTRA_PCIE_SWITCH, INTRA_NVLINK, INTRA_NVSWITCH } gcsim_intra_kind;
typedef enum { NIC_ETHERNET, NIC_INFINIBAND } gcsim_nic_kind;
typedef enum { FABRIC_STAR, FABRIC_FAT_TREE } gcsim_fabric_topology;
/* Where a fat tree's leaves attach a node's NICs (issue 41; docs/formats.md, "fabric"):
 * all under the node's one leaf (node, the default), or NIC r of every node of a rail
 * group under the group's rail leaf r (rail-optimized, as NVIDIA's DGX SuperPOD). */
typedef enum { FABRIC_PLACEMENT_NODE, FABRIC_PLACEMENT_RAIL } gcsim_fabric_placement;
/* What drives a NIC (platform_transport.c; docs/formats.md, "Transports"). TRANSPORT_NONE:
 * the key is absent, the NIC moves nic.bandwidth as an RDMA NIC with GPUDirect does (the
 * behaviour before transports existed). */
typedef enum {
    TRANSPORT_NONE,
    TRANSPORT_IB,
    TRANSPORT_ROCE,
    TRANSPORT_EFA,
    TRANSPORT_TCP,
    TRANSPORT_TCPXO
} gcsim_transport;

/* "busbw_correction" (platform_busbw_correction.h): busbw factors by message-size band,
 * fitted by `gcsim calibrate` to one log (an operation on a GPU count). */
#define GCSIM_BUSBW_MAX_ENTRIES 2
#define GCSIM_BUSBW_MAX_BANDS 24
typedef struct {
    char fitted_to[128];  /* the log's file name */
    int op;               /* 0 all_reduce, 1 all_gather, 2 reduce_scatter (gcsim_op's order) */
    int gpus;
    int n_bands;
    double below_bytes[GCSIM_BUSBW_MAX_BANDS]; /* band k: sizes below this (the last: +inf) */
    double factor[GCSIM_BUSBW_MAX_BANDS];      /* measured / modelled busbw in band k */
} gcsim_busbw_correction;

typedef struct {
    char name[128];
    char description[512];
    char source_path[512]; /* the file it came from, for messages */

    int nodes;
    int gpus_per_node;

    struct {
        char type[64];            /* matched against model compute profiles */
        char profile_as[64];      /* "profile_as": a GPU type whose compute profiles and
                                     transformer-efficiency fit serve this one where a model
                                     has none for `type` (gcsim_platform_profile); "" if not
                                     given */
        double speed_flops;       /* peak at fp32/tf32 (the math fp32 training uses): MFU and
                                     the roofline for GPUs without a profile */
        double codec_Bps;         /* deprecated "codec_throughput": when given, one
                                     encode/decode rate for every compressor, in fp32
                                     gradient bytes per second, overriding the codec
                                     model and any profile; 0 if not given */
        char codec_profile[512];  /* "codec_profile": a measured codec profile file,
                                     resolved against the platform file's folder
                                     (sim/codec/codec.h); "" if not given */
        double memory_bytes;      /* device memory; 0 if not given (no feasibility check) */
        double memory_Bps;        /* device memory bandwidth; 0 if not given (roofline) */
        double speed_16bit_flops; /* peak bf16/fp16 tensor speed; 0 if not given */
        /* "comm_interference": the share s of the GPU's compute a collective in flight
         * takes (its kernels' SMs, their HBM traffic): compute overlapped with a call runs
         * at (1 - s) of its speed (sim/step/interference.c). -1: not given, the GPU type's
         * derived default there (a platform built in code without the loader: 0 is off). */
        double comm_interference;
    } gpu;

    struct {
        gcsim_intra_kind kind;
        double gpu_to_host_Bps;   /* C_cwd: one GPU to host memory (PCIe) */
        double gpu_to_gpu_Bps;    /* C_gwd: one GPU to another in the node; for NVLink
                                     links_per_pair * link_Bps; for NVSwitch the per-GPU
                                     bandwidth into the switch */
        double latency_s;         /* per transfer inside a node */
        int nvlink_links_per_pair;   /* INTRA_NVLINK only */
        double nvls_Bps;             /* INTRA_NVSWITCH with in-switch reduction (NVLink
                                        SHARP, "nvls_bandwidth"): what each GPU's port moves
                                        each way during an NVLS all-reduce (busbw over
                                        2(i-1)/i); 0: no NVLS */
        double nvlink_link_Bps;      /* INTRA_NVLINK only */
        /* PCIe topology ("pcie", kind pcie-switch only; platform_transport.c): */
        int sockets;                 /* CPU sockets, each a root complex with its GPUs (an
                                        equal consecutive share); 1 when not given */
        double socket_link_Bps;      /* UPI/xGMI between two sockets, one direction; 0: one
                                        socket */
        bool p2p_off;                /* "p2p": false: GPU-to-GPU copies are staged through
                                        host memory, not peer to peer (false by default, so
                                        that a zeroed platform is the flat node of before) */
        double host_memory_Bps;      /* a node's host memory bandwidth for staged copies (its
                                        GPUs share it); 0: not a limit */
        int gpus_per_switch;         /* "gpus_per_switch": GPUs behind one PCIe switch, which
                                        reaches its root complex through one uplink; 0: each
                                        GPU on its own root port (no shared uplink) */
        double switch_uplink_Bps;    /* "switch_uplink": that uplink, one direction (0 with
                                        gpus_per_switch 0) */
        bool p2p_switch_only;        /* "p2p_level" "pxb" (the default where "pcie" is
                                        given): NCCL's default P2P level, P2P only between
                                        GPUs behind one PCIe switch, every other pair staged
                                        through host memory (SHM); false ("sys", or no "pcie":
                                        one flat switch): P2P between every pair */
        double shm_efficiency;       /* "shm_efficiency", staged pairs only: the fraction of a
                                        PCIe link's (DMA) rate NCCL's SHM transport gets, its
                                        kernels storing to and loading from host memory
                                        (platform_pcie_shm.c); 0 in a platform built in code */
        double h2d_bidirectional_Bps; /* "h2d_bidirectional", staged pairs only: what one
                                        GPU's link moves host to GPU while GPU-to-host
                                        traffic runs on it at the same time (nvbandwidth's
                                        host_to_device_bidirectional_memcpy_ce); SHM loads
                                        and stores cross every staged link both ways at once,
                                        so it caps the rate shm_efficiency applies to
                                        (platform_pcie_shm.c); 0: not a limit */
        double shm_bandwidth_Bps;    /* "shm_bandwidth", staged pairs only: what NCCL's SHM
                                        transport moves over one staged PCIe link of this
                                        host each way, measured (a 2-GPU all_reduce's busbw
                                        between GPUs that share no PCIe link); stated, it
                                        replaces shm_efficiency x min(link, h2d_bidirectional)
                                        (platform_pcie_shm.c); 0: not stated */
    } intra;

    struct {
        gcsim_nic_kind kind;
        double bandwidth_Bps;     /* per NIC, one direction */
        double latency_s;         /* C_ncost */
        int per_node;             /* NICs per node (1, or gpus_per_node for one per GPU) */
        bool cpu_c2c;             /* "attach": "cpu-c2c": the NIC sits on the CPU's PCIe and
                                     the GPU reaches the CPU over NVLink-C2C (GB200, GH200):
                                     NCCL's path type PHB before 2.27.3, P2C from it; false
                                     ("pcie-switch", the default): at most a PCIe switch away
                                     from the GPU (PXB), as gcsim assumed before the key */
        /* The transport (platform_transport.c; all 0 / false with TRANSPORT_NONE): */
        gcsim_transport transport;
        bool gpudirect;           /* the NIC reads and writes GPU memory; false: every byte
                                     is staged through host memory */
        int channels;             /* NCCL channels, each with its own connection per peer */
        int socket_threads;       /* tcp: NCCL_SOCKET_NTHREADS per connection (0: the proxy
                                     thread itself, one socket) */
        int sockets_per_thread;   /* tcp: NCCL_NSOCKS_PERTHREAD */
        double stream_Bps;        /* tcp: one TCP stream (socket), one direction */
        double thread_Bps;        /* tcp: what one CPU thread moves through the socket stack */
        double message_overhead_s; /* per message (NCCL step) on top of nic.latency */
        int mtu_bytes;            /* tcp: the Ethernet MTU whose headers and framing the
                                     payload shares the wire with; 0: no framing charged */
        int flows;                /* tcp: TCP flows of one connection, each way (channels x
                                     sockets): NCCL splits every transfer equally over them */
        double flow_balance;      /* tcp: the slowest of those flows over their mean rate;
                                     the connection and the NIC move flows x the slowest
                                     (1: equal flows, or a single flow) */
        double connection_Bps;    /* derived: what one GPU's connections move each way
                                     (channels x threads x min(sockets x stream, thread);
                                     socket_threads 0: channels x stream); 0: no cap */
        double proxy_Bps;         /* derived, tcp with socket_threads 0: what the GPU's proxy
                                     thread moves through its sockets, both directions and
                                     all channels together (thread_Bps); efa: what it moves
                                     through its libfabric endpoint (nic.proxy_bandwidth,
                                     default without GPUDirect); 0: no such cap */
    } nic;

    struct {
        gcsim_fabric_topology topology;
        double oversubscription;  /* fat tree: leaf downlink over uplink bandwidth, >= 1 */
        int nodes_per_leaf;       /* fat tree: nodes under one leaf switch; rail-optimized:
                                     the nodes of one rail group, each of whose R rail
                                     leaves has one port to each of them */
        gcsim_fabric_placement placement; /* fat tree: node (default) or rail-optimized */
        double switch_latency_s;
    } fabric;

    /* "nvlink_domain" (platform_nvlink_domain.c): an NVLink domain across hosts (GB200
     * NVL72). When given, gcsim's node is the domain, as NCCL's is: gpus_per_node, nodes,
     * nic.per_node and nodes_per_leaf above count domains, and these keep the file's hosts.
     * All 0: no such domain (a node is a host). */
    struct {
        int hosts;       /* hosts (compute trays) per domain */
        int host_gpus;   /* GPUs per host (the file's gpus_per_node) */
        int host_nics;   /* NICs per host (the file's nic.per_node) */
        int file_nodes;  /* hosts in the cluster (the file's nodes) */
    } nvlink_domain;

    /* The exchange current stacks use on this cluster, if the file names one (key
     * "collective"); gcsim_platform_default_collective (scenario.h) falls back to ring. */
    char collective[32];

    /* The training stack that runs the exchange on this cluster (key "stack"): a catalog
     * name ("pytorch-ddp"), or a path made relative to the platform file's folder; empty:
     * the default stack (sim/stack/stack.h). */
    char stack[512];

    bool has_price;
    double price_per_gpu_hour_usd;
    char price_source[256];

    /* Shared fabric (issue 41): a constant background load (another job's traffic, rate
     * limited) taking a fraction of the capacity of one class of links. Set by options
     * (--background-load), never by the file; the DES simulates it (sim/des/des_fabric.c),
     * the analytic engine does not (it says so). Zeroed: none. */
    struct {
        double fraction;          /* in [0, 1): the share of each such link's capacity taken */
        int links;                /* GCSIM_BACKGROUND_LEAF_UPLINKS or GCSIM_BACKGROUND_NICS */
    } background;
    /* ECMP (issue 41): a fat tree's leaf uplink and downlink each split into `spines` equal
     * links, one per spine switch, and every endpoint's traffic between leaves hashed onto
     * one of them with `seed` (sim/des/des_fabric.h). Set by options (--ecmp-spines), never
     * by the file; DES only. Zeroed: off (the one aggregate uplink per leaf). */
    struct {
        int spines;
        unsigned long long seed;
    } ecmp;
    /* Network jitter (issue 41): every message's arrival delayed by an extra latency drawn
     * from an exponential distribution of this mean, seeded (sim/des/des_fabric.h). Set by
     * options (--jitter-us), never by the file; DES only. Zeroed: none. */
    struct {
        double mean_s;
        unsigned long long seed;
    } jitter;
    /* NCCL's channel-count settings (issue 42): NCCL_MIN_CTAS / NCCL_MIN_NCHANNELS and
     * NCCL_MAX_CTAS / NCCL_MAX_NCHANNELS, the larger minimum and the smaller maximum, as the
     * job that is modelled set them (sim/collectives/tuner_model.c,
     * gcsim_nccl_env_channels). Set by options (--nccl-min-channels), never by the file.
     * 0: not set (NCCL's own count). */
    struct {
        int min_channels;
        int max_channels;
    } nccl_env;
    /* "nccl_version" (platform_nccl_version.c): the NCCL release the job runs, as NCCL's
     * NCCL_VERSION_CODE (2.26.2 -> 22602); 0: not given, NCCL's current tuning tables
     * (sim/collectives/tuner_model.c). */
    int nccl_version;
    /* "busbw_correction": fitted per-size-band busbw factors; n = 0: none. */
    struct {
        int n;
        gcsim_busbw_correction entry[GCSIM_BUSBW_MAX_ENTRIES];
    } busbw_correction;
} gcsim_platform;

enum { GCSIM_BACKGROUND_LEAF_UPLINKS = 0, GCSIM_BACKGROUND_NICS = 1 };

/* Load and validate a platform file. */
int gcsim_platform_load(const char *path, gcsim_platform *out, gcsim_error *err);
/* Parse platform JSON text; `origin` names it in messages (a path or "<embedded>"). */
int gcsim_platform_parse(const char *json_text, const char *origin, gcsim_platform *out,
                         gcsim_error *err);

/* Staging through host memory: a node's GPUs copy to each other through host memory (no
 * P2P), or its NIC cannot reach GPU memory (no GPUDirect), and a host memory bandwidth is
 * given to bound it. */
bool gcsim_platform_host_staging(const gcsim_platform *p);

/* Whether some GPU pairs of a node copy through host memory by NCCL's SHM transport: no
 * P2P at all (pcie.p2p false), or P2P only behind a common PCIe switch (pcie.p2p_level
 * "pxb", NCCL's default) with pairs that have none (platform_pcie_shm.c). */
bool gcsim_platform_intra_shm(const gcsim_platform *p);
/* Whether GPUs a and b of one node (indices within the node) copy through host memory. */
bool gcsim_platform_pair_staged(const gcsim_platform *p, int a, int b);
/* The factor on a PCIe link's capacity (a GPU's link, a switch uplink) on a platform whose
 * GPUs copy through host memory (gcsim_platform_intra_shm): the SHM transport's share of
 * the DMA rate (intra_node.pcie.shm_efficiency, platform_pcie_shm.c); 1 otherwise. */
double gcsim_platform_pcie_shm_scale(const gcsim_platform *p);
/* What NCCL's SHM transport gets of a PCIe link of rate link_Bps (a GPU's gpu_to_host, a
 * switch_uplink, after any protocol scaling; bidir_Bps the pcie.h2d_bidirectional rate
 * scaled the same way, 0 when not stated): shm_efficiency x min(link_Bps, bidir_Bps) where
 * pairs are staged, or min(link_Bps, pcie.shm_bandwidth) where the platform states the
 * host's measured SHM rate; link_Bps otherwise (platform_pcie_shm.c). */
double gcsim_platform_pcie_shm_link_Bps(const gcsim_platform *p, double link_Bps,
                                        double bidir_Bps);
/* What one GPU's connections move each way over the socket transport (0: no such cap). */
double gcsim_platform_connection_Bps(const gcsim_platform *p);
/* Whether the topology has links beyond the flat node of before transports (per-GPU
 * connections, host memory, sockets): the closed forms do not cover those. */
bool gcsim_platform_has_transport_links(const gcsim_platform *p);

/* What a NIC link moves of payload: nic.bandwidth, times the TCP payload per wire byte
 * (mtu - 52) / (mtu + 38) with the socket transport (platform_transport.c). */
double gcsim_platform_nic_payload_Bps(const gcsim_platform *p);

/* Aggregate network bandwidth of one node: nic.bandwidth_Bps * nic.per_node (C_nwd). */
double gcsim_platform_node_network_Bps(const gcsim_platform *p);

/* How N GPUs are placed: machines are filled first. i GPUs on each of j machines when N is
 * a multiple of gpus_per_node or N <= gpus_per_node; otherwise the last machine is partly
 * filled (last_node_gpus < i) and the models use i = gpus_per_node, j = ceil(N / i). */
typedef struct {
    int gpus;            /* N */
    int gpus_per_machine; /* i */
    int machines;        /* j */
    int last_machine_gpus;
} gcsim_placement;

int gcsim_platform_place(const gcsim_platform *p, int gpus, gcsim_placement *out,
                         gcsim_error *err);

/* Fitted busbw bands ("busbw_correction"; parsed by platform_busbw_correction.c). */
/* The entry for operation `op` (0 all_reduce, 1 all_gather, 2 reduce_scatter: gcsim_op's
 * order) on `gpus` GPUs, or NULL. */
const gcsim_busbw_correction *gcsim_busbw_correction_find(const gcsim_platform *p, int op,
                                                          int gpus);
/* Its factor at `bytes` (the band holding it: the first whose below_bytes exceeds it). */
double gcsim_busbw_correction_factor(const gcsim_busbw_correction *c, double bytes);
/* A collective's time on p corrected by the platform's fitted factor (time / factor: busbw
 * x factor); the time unchanged when p has no entry for op and gpus. The hook the engines
 * call on a bare operation's time (sim/analytic/analytic_bare.c, sim/des/des_bare.c). */
double gcsim_busbw_corrected_time_s(const gcsim_platform *p, int op, int gpus, double bytes,
                                    double time_s);

#endif
