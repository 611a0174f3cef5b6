/* SPDX-License-Identifier: MIT */
#ifndef TAKYON_EXAMPLES_GRAPH_SCATTER_GATHER_TASK_H_
#define TAKYON_EXAMPLES_GRAPH_SCATTER_GATHER_TASK_H_

#include "takyon/takyon_extensions.h"

/** root[0]: ncycles scatters of the 'scatter' buffer and gathers into the 'gather' buffer, each checked. */
void rootTask(TakyonGraph *graph, int group_id, int ncycles);
/** worker[i]: receives its part of each scatter, checks it, processes it and sends it to the gather. */
void workerTask(TakyonGraph *graph, int group_id, int ncycles);

#endif /* TAKYON_EXAMPLES_GRAPH_SCATTER_GATHER_TASK_H_ */
