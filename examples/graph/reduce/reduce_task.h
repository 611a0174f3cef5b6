/* SPDX-License-Identifier: MIT */
#ifndef TAKYON_EXAMPLES_GRAPH_REDUCE_TASK_H_
#define TAKYON_EXAMPLES_GRAPH_REDUCE_TASK_H_

#include "takyon/takyon_extensions.h"

/** The task of every instance of group "node": ncycles max and sum reductions, each one checked. */
void reduceTask(TakyonGraph *graph, int group_id, int ncycles);

#endif /* TAKYON_EXAMPLES_GRAPH_REDUCE_TASK_H_ */
