/* SPDX-License-Identifier: MIT */
/* The guide's small extensions: attribute set-up, time, endian helpers, named memory maps. */
#ifndef TAKYON_TAKYON_EXTENSIONS_H_
#define TAKYON_TAKYON_EXTENSIONS_H_

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "takyon.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Size of a named memory map's name, including the terminating NUL. */
#define TAKYON_MAX_MMAP_NAME_CHARS 128

/** Handle of a named memory block made by takyonMmapAlloc(). */
typedef struct TakyonMmapStruct *TakyonMmapHandle;

/**
 * Fills in attributes for a simple symmetric path: every buffer has `bytes` bytes, all six
 * timeouts are `timeout`, blocking completion, errors printed, no abort. The four lists are
 * malloc()ed (address entries 0: Takyon allocates) and freed by takyonFreeAttributes(). On
 * invalid arguments or no memory it prints why and returns attributes with NULL lists, which
 * takyonCreate() then rejects with a clear error.
 */
TAKYON_API TakyonPathAttributes takyonAllocAttributes(bool is_endpointA, bool is_polling, int nbufs_AtoB,
                                                      int nbufs_BtoA, uint64_t bytes, double timeout,
                                                      const char *interconnect);

/** Frees the lists that takyonAllocAttributes() allocated (any that are not NULL). */
TAKYON_API void takyonFreeAttributes(TakyonPathAttributes attrs);

/** Seconds elapsed since the first call to takyonTime() in this process (monotonic clock). */
TAKYON_API double takyonTime(void);

/** Puts the calling thread to sleep for `seconds` (resumes after signals until it elapsed). */
TAKYON_API void takyonSleep(double seconds);

/** true if this endpoint is big endian, false if little endian. */
TAKYON_API bool takyonEndianIsBig(void);
/** Byte-swaps num_elements 2-byte values in place. */
TAKYON_API void takyonEndianSwap2Byte(void *data, uint64_t num_elements);
/** Byte-swaps num_elements 4-byte values in place. */
TAKYON_API void takyonEndianSwap4Byte(void *data, uint64_t num_elements);
/** Byte-swaps num_elements 8-byte values in place. */
TAKYON_API void takyonEndianSwap8Byte(void *data, uint64_t num_elements);

/**
 * Creates a named memory block (POSIX shared memory "/takyon-mmap-<map_name>", mode 0600) of
 * `bytes` bytes that other processes of this OS can map by the same name. An existing block of
 * that name is removed and made anew. On failure *addr_ret and *mmap_handle_ret are set to NULL
 * and the reason is printed to stderr. Free with takyonMmapFree().
 */
TAKYON_API void takyonMmapAlloc(const char *map_name, uint64_t bytes, void **addr_ret,
                                TakyonMmapHandle *mmap_handle_ret);

/** Unmaps and removes a block made by takyonMmapAlloc(). NULL is ignored. */
TAKYON_API void takyonMmapFree(TakyonMmapHandle mmap_handle);

/* ------------------------------------------------------------------------------------------------
 * Errors of the collective and graph functions.
 *
 * The guide declares most of these functions void; here they return bool (or NULL) so callers can
 * react, and code written against the guide, which ignores the result, still compiles. A failing
 * call also prints its message to stderr (the guide's programs do not check results) and never
 * exits the process.
 * --------------------------------------------------------------------------------------------- */

/**
 * Why the calling thread's most recent failed collective or graph call failed ("" if none has).
 * The text stays valid until the thread's next failing call. Threading: per thread.
 */
TAKYON_API const char *takyonExtensionError(void);

/* ------------------------------------------------------------------------------------------------
 * Collectives on paths that already exist (takyon_collective.c in the guide). Init functions copy
 * the path lists; Finalize frees what Init allocated and never destroys a path. Each Run/Send/Recv
 * returns true when this caller's part completed, false on a path error or a timeout (the message,
 * naming the collective, the path and the buffer, is in takyonExtensionError()). After false the
 * paths involved are in an unknown state: destroy them.
 * --------------------------------------------------------------------------------------------- */

/** Tree barrier: this caller's edge to its parent (NULL at the root) and to its children. */
typedef struct {
  int nchildren;
  TakyonPath *parent_path;
  TakyonPath **child_path_list;
} TakyonCollectiveBarrier;

/** Tree reduce (and allreduce): same shape as the barrier. */
typedef struct {
  int nchildren;
  TakyonPath *parent_path;
  TakyonPath **child_path_list;
} TakyonCollectiveReduce;

/** Tree broadcast (beyond the guide): same shape as the barrier. */
typedef struct {
  int nchildren;
  TakyonPath *parent_path;
  TakyonPath **child_path_list;
} TakyonCollectiveBcast;

/** Any arrangement of independent sender-to-receiver paths (pipeline, mesh, torus...). */
typedef struct {
  int npaths;                  /**< Paths in the whole collective. */
  int num_src_paths;           /**< Paths on which this caller is the sender. */
  int num_dest_paths;          /**< Paths on which this caller is the receiver. */
  TakyonPath **src_path_list;  /**< num_src_paths entries. */
  TakyonPath **dest_path_list; /**< num_dest_paths entries. */
} TakyonCollectiveOne2One;

/** The root of a scatter: path_list[i] leads to destination i. */
typedef struct {
  int npaths;
  TakyonPath **path_list;
} TakyonScatterSrc;

/** One destination of a scatter. */
typedef struct {
  int npaths;
  int path_index;
  TakyonPath *path;
} TakyonScatterDest;

/**
 * One source of a gather. path_list points at path (one entry): the guide's gather example reads
 * path_list[0].
 */
typedef struct {
  int npaths;
  int path_index;
  TakyonPath *path;
  TakyonPath **path_list;
} TakyonGatherSrc;

/** The destination of a gather: path_list[i] comes from source i. */
typedef struct {
  int npaths;
  TakyonPath **path_list;
} TakyonGatherDest;

/**
 * All-to-all among nmembers (beyond the guide): path_list[j] is this caller's path to member j,
 * NULL at my_index. Every pair of members shares one path.
 */
typedef struct {
  int nmembers;
  int my_index;
  TakyonPath **path_list;
} TakyonCollectiveAlltoall;

/**
 * An element-wise reduction: a[i] = a[i] op b[i] for nelements elements. The application supplies
 * it (sum, min, max...). It must not keep the pointers.
 */
typedef void (*TakyonReduceFunction)(uint64_t nelements, void *a, void *b);

/**
 * Barrier over a tree of any fan-out. nchildren paths in child_path_list lead to this caller's
 * children; parent_path leads to its parent (NULL at the root). A path may be used from either
 * endpoint. Returns NULL (with the reason) on bad arguments or no memory.
 */
TAKYON_API TakyonCollectiveBarrier *takyonBarrierInit(int nchildren, TakyonPath *parent_path,
                                                      TakyonPath **child_path_list);
/**
 * Runs the barrier with zero-byte messages in buffer `buffer` of every path (both directions): the
 * leaves report to their parents up to the root, then the root releases the tree. No caller
 * returns before every member has entered. Use a different buffer per barrier sharing the paths.
 */
TAKYON_API bool takyonBarrierRun(TakyonCollectiveBarrier *collective, int buffer);
/** Frees the collective and its list (NULL is ignored); the paths stay. */
TAKYON_API void takyonBarrierFinalize(TakyonCollectiveBarrier *collective);

/** Reduce over a tree; arguments as takyonBarrierInit(). */
TAKYON_API TakyonCollectiveReduce *takyonReduceInit(int nchildren, TakyonPath *parent_path,
                                                    TakyonPath **child_path_list);
/**
 * The root's part of a reduce. `data` (nelements * bytes_per_elem bytes) holds the root's
 * contribution and receives the result. Each child's partial result arrives at offset 0 of
 * buffer `buffer` of its path and is folded in with reduce_function(nelements, data, arrived).
 * With scatter_result the result then travels back down the tree.
 */
TAKYON_API bool takyonReduceRoot(TakyonCollectiveReduce *collective, int buffer, uint64_t nelements,
                                 uint64_t bytes_per_elem, TakyonReduceFunction reduce_function, void *data,
                                 bool scatter_result);
/**
 * A non-root part of a reduce. This caller's contribution must be at offset 0 of send buffer
 * `buffer` of parent_path; the children's results are folded into it and it is sent up. With
 * scatter_result the final result arrives at offset 0 of receive buffer `buffer` of parent_path
 * and is passed on to the children.
 */
TAKYON_API bool takyonReduceChild(TakyonCollectiveReduce *collective, int buffer, uint64_t nelements,
                                  uint64_t bytes_per_elem, TakyonReduceFunction reduce_function,
                                  bool scatter_result);
/**
 * Allreduce (beyond the guide), the same call on every member: `data` holds this caller's
 * contribution and receives the result of the whole tree.
 */
TAKYON_API bool takyonAllreduce(TakyonCollectiveReduce *collective, int buffer, uint64_t nelements,
                                uint64_t bytes_per_elem, TakyonReduceFunction reduce_function, void *data);
/** Frees the collective and its list (NULL is ignored); the paths stay. */
TAKYON_API void takyonReduceFinalize(TakyonCollectiveReduce *collective);

/** Broadcast over a tree (beyond the guide); arguments as takyonBarrierInit(). */
TAKYON_API TakyonCollectiveBcast *takyonBcastInit(int nchildren, TakyonPath *parent_path,
                                                  TakyonPath **child_path_list);
/**
 * The root's part of a broadcast: nbytes of `data` are sent down the tree. data may be NULL when
 * the root already put the bytes at offset 0 of send buffer `buffer` of every child path.
 */
TAKYON_API bool takyonBcastRoot(TakyonCollectiveBcast *collective, int buffer, uint64_t nbytes,
                                const void *data);
/**
 * A non-root part of a broadcast: the bytes arrive at offset 0 of receive buffer `buffer` of
 * parent_path (their count in *nbytes_ret, which may be NULL) and are passed on to the children.
 */
TAKYON_API bool takyonBcastChild(TakyonCollectiveBcast *collective, int buffer, uint64_t *nbytes_ret);
/** Frees the collective and its list (NULL is ignored); the paths stay. */
TAKYON_API void takyonBcastFinalize(TakyonCollectiveBcast *collective);

/** Groups paths with no implied pattern; the application sends and receives on them itself. */
TAKYON_API TakyonCollectiveOne2One *takyonOne2OneInit(int npaths, int num_src_paths, int num_dest_paths,
                                                      TakyonPath **src_path_list,
                                                      TakyonPath **dest_path_list);
/** Frees the collective and its lists (NULL is ignored); the paths stay. */
TAKYON_API void takyonOne2OneFinalize(TakyonCollectiveOne2One *collective);

/** The scatter root over npaths paths (the list is copied). */
TAKYON_API TakyonScatterSrc *takyonScatterSrcInit(int npaths, TakyonPath **path_list);
/** Destination path_index of a scatter over npaths paths. */
TAKYON_API TakyonScatterDest *takyonScatterDestInit(int npaths, int path_index, TakyonPath *path);
/**
 * Sends nbytes_list[i] bytes from soffset_list[i] of send buffer `buffer` of path i to
 * doffset_list[i] of the destination's buffer, for every i, and completes non-blocking sends.
 */
TAKYON_API bool takyonScatterSend(TakyonScatterSrc *collective, int buffer, uint64_t *nbytes_list,
                                  uint64_t *soffset_list, uint64_t *doffset_list);
/** Waits for this destination's part in receive buffer `buffer`; either pointer may be NULL. */
TAKYON_API bool takyonScatterRecv(TakyonScatterDest *collective, int buffer, uint64_t *nbytes_ret,
                                  uint64_t *offset_ret);
/** Frees the collective and its list (NULL is ignored); the paths stay. */
TAKYON_API void takyonScatterSrcFinalize(TakyonScatterSrc *collective);
/** Frees the collective (NULL is ignored); the path stays. */
TAKYON_API void takyonScatterDestFinalize(TakyonScatterDest *collective);

/** Source path_index of a gather over npaths paths. */
TAKYON_API TakyonGatherSrc *takyonGatherSrcInit(int npaths, int path_index, TakyonPath *path);
/** The gather destination over npaths paths (the list is copied). */
TAKYON_API TakyonGatherDest *takyonGatherDestInit(int npaths, TakyonPath **path_list);
/** Sends this source's part and completes it if the path is non-blocking. */
TAKYON_API bool takyonGatherSend(TakyonGatherSrc *collective, int buffer, uint64_t nbytes, uint64_t soffset,
                                 uint64_t doffset);
/** Waits for every source's part; the lists (npaths entries each) may be NULL. */
TAKYON_API bool takyonGatherRecv(TakyonGatherDest *collective, int buffer, uint64_t *nbytes_list_ret,
                                 uint64_t *offset_list_ret);
/** Frees the collective (NULL is ignored); the path stays. */
TAKYON_API void takyonGatherSrcFinalize(TakyonGatherSrc *collective);
/** Frees the collective and its list (NULL is ignored); the paths stay. */
TAKYON_API void takyonGatherDestFinalize(TakyonGatherDest *collective);

/** All-to-all among nmembers; path_list has nmembers entries, NULL at my_index (copied). */
TAKYON_API TakyonCollectiveAlltoall *takyonAlltoallInit(int nmembers, int my_index, TakyonPath **path_list);
/**
 * The same call on every member: block j (bytes_per_member bytes at send_data + j *
 * bytes_per_member) goes to member j, whose block from this caller lands at recv_data + my_index *
 * bytes_per_member. Blocks travel through offset 0 of buffer `buffer` of each path, which must
 * hold bytes_per_member bytes.
 */
TAKYON_API bool takyonAlltoall(TakyonCollectiveAlltoall *collective, int buffer, uint64_t bytes_per_member,
                               const void *send_data, void *recv_data);
/** Frees the collective and its list (NULL is ignored); the paths stay. */
TAKYON_API void takyonAlltoallFinalize(TakyonCollectiveAlltoall *collective);

/* ------------------------------------------------------------------------------------------------
 * Graph description files (takyon_graph.c in the guide). The file format is in docs/extensions.md and in
 * graph-format-notes; the structures below are what takyonLoadGraphDescription() fills in.
 * --------------------------------------------------------------------------------------------- */

/** A named group of instances; instance i has the global group ID starting_group_id + i. */
typedef struct {
  char *name;
  int instances;
  int starting_group_id;
} TakyonGroup;

/** One group instance of a process: the thread the application starts for it. */
typedef struct {
  int group_id;
  pthread_t thread_handle; /**< For the application's use (pthread_create/join). */
} TakyonThread;

/** A memory block from the Buffers section; addr/user_data set only in the owning process. */
typedef struct {
  char *name;
  char *where;
  uint64_t bytes;
  void *addr;
  void *user_data;
} TakyonBuffer;

/** A process; the graph's process_list is indexed by process ID (0 .. process_count-1). */
typedef struct {
  int id;
  int thread_count;
  TakyonThread *thread_list;
  int buffer_count;
  TakyonBuffer *buffer_list;
} TakyonProcess;

/**
 * A path of the graph. group_idA/B is -1 for a side written "-" (one-sided path). attrsA/B are
 * the endpoint attributes; address lists are resolved only for endpoints of the loading process.
 * pathA/B are set by takyonCreateGroupPaths() of the owning group instance.
 */
typedef struct {
  int id;
  int group_idA;
  int group_idB;
  TakyonPathAttributes attrsA;
  TakyonPathAttributes attrsB;
  TakyonPath *pathA;
  TakyonPath *pathB;
} TakyonConnection;

typedef enum {
  TAKYON_COLLECTIVE_BARRIER,
  TAKYON_COLLECTIVE_REDUCE,
  TAKYON_COLLECTIVE_ONE2ONE,
  TAKYON_COLLECTIVE_SCATTER,
  TAKYON_COLLECTIVE_GATHER,
  TAKYON_COLLECTIVE_BCAST,   /**< Beyond the guide: a tree, like BARRIER. */
  TAKYON_COLLECTIVE_ALLTOALL /**< Beyond the guide: one path between every pair of members. */
} TakyonCollectiveType;

/** One PathSrcIds entry: a path ID and which side is the source (the parent in a tree). */
typedef struct {
  int path_id;
  bool src_is_endpointA;
} TakyonCollectiveConnection;

/**
 * A tree collective (BARRIER, REDUCE, BCAST): the root node has path_index -1; every other node is
 * an edge, path_index indexing the collective's path_list, from its parent's instance to a child.
 */
typedef struct TakyonPathTree {
  int path_index;
  int num_children;
  struct TakyonPathTree *children;
  struct TakyonPathTree *parent;
} TakyonPathTree;

typedef struct {
  char *name;
  TakyonCollectiveType type;
  int num_paths;
  TakyonCollectiveConnection *path_list; /**< The PathSrcIds entries in file order. */
  TakyonPathTree *path_tree;             /**< Tree collectives only, else NULL. */
} TakyonCollective;

typedef struct {
  int group_count;
  TakyonGroup *group_list;
  int process_count;
  TakyonProcess *process_list;
  int path_count;
  TakyonConnection *path_list; /**< In file order; TakyonConnection.id is the file's path ID. */
  int collective_count;
  TakyonCollective *collective_list;
  void *private_graph; /**< Internal state: do not touch. */
} TakyonGraph;

/**
 * Loads and checks the graph file for process process_id, then allocates that process's Buffers
 * with appAllocateMemory(). Returns NULL on any error: a syntax or consistency error names the
 * file, the line and what was expected (printed to stderr and in takyonExtensionError()).
 * Threading: call once per process, before its group instances start.
 */
TAKYON_API TakyonGraph *takyonLoadGraphDescription(int process_id, const char *filename);
/** Frees the process's Buffers with appFreeMemory() and the graph itself (NULL is ignored). */
TAKYON_API void takyonFreeGraphDescription(TakyonGraph *graph, int process_id);
/** Prints the groups, processes, buffers, paths and collectives to stdout. */
TAKYON_API void takyonPrintGraph(TakyonGraph *graph);

/**
 * Creates every path endpoint of group instance group_id, in ascending path ID order on every
 * instance, which cannot deadlock. Returns false on the first failure (the paths already created
 * stay; takyonDestroyGroupPaths() destroys them). Threading: the instance's own thread; instances
 * call it concurrently.
 */
TAKYON_API bool takyonCreateGroupPaths(TakyonGraph *graph, int group_id);
/** Destroys every path endpoint group_id created, in ascending path ID order. */
TAKYON_API bool takyonDestroyGroupPaths(TakyonGraph *graph, int group_id);
/** The group that global group ID group_id belongs to, or NULL if there is none. */
TAKYON_API TakyonGroup *takyonGetGroup(TakyonGraph *graph, int group_id);
/** The instance index of group_id within its group, or -1 if there is none. */
TAKYON_API int takyonGetGroupInstance(TakyonGraph *graph, int group_id);

/*
 * Collective handles from the graph for group instance group_id, built from the paths it created
 * (call after takyonCreateGroupPaths()). Each returns a new handle for the matching Finalize, or
 * NULL if there is no collective of that name and type or group_id has no part in it.
 */
TAKYON_API TakyonCollectiveBarrier *takyonGetBarrier(TakyonGraph *graph, const char *name, int group_id);
TAKYON_API TakyonCollectiveReduce *takyonGetReduce(TakyonGraph *graph, const char *name, int group_id);
TAKYON_API TakyonCollectiveBcast *takyonGetBcast(TakyonGraph *graph, const char *name, int group_id);
TAKYON_API TakyonCollectiveOne2One *takyonGetOne2One(TakyonGraph *graph, const char *name, int group_id);
TAKYON_API TakyonScatterSrc *takyonGetScatterSrc(TakyonGraph *graph, const char *name, int group_id);
TAKYON_API TakyonScatterDest *takyonGetScatterDest(TakyonGraph *graph, const char *name, int group_id);
TAKYON_API TakyonGatherSrc *takyonGetGatherSrc(TakyonGraph *graph, const char *name, int group_id);
TAKYON_API TakyonGatherDest *takyonGetGatherDest(TakyonGraph *graph, const char *name, int group_id);
TAKYON_API TakyonCollectiveAlltoall *takyonGetAlltoall(TakyonGraph *graph, const char *name, int group_id);

/*
 * Defined by the application when its graph has Buffers (the library calls them through weak
 * references, so programs without Buffers need not define them). `where` is the file's text
 * ("CPU", "MMAP", "CUDA:0" ...), passed through unparsed. Return NULL for memory that cannot be
 * allocated; the load then fails naming the buffer. TAKYON_API (default visibility) keeps the
 * application's definitions visible to libtakyon even when the application is built with
 * -fvisibility=hidden.
 */
TAKYON_API void *appAllocateMemory(const char *name, const char *where, uint64_t bytes, void **user_data_ret);
TAKYON_API void appFreeMemory(const char *where, void *user_data, void *addr);

#ifdef __cplusplus
}
#endif

#endif /* TAKYON_TAKYON_EXTENSIONS_H_ */
