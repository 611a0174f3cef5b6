/* SPDX-License-Identifier: MIT */
#ifndef TAKYON_EXAMPLES_GRAPH_BARRIER_TASK_H_
#define TAKYON_EXAMPLES_GRAPH_BARRIER_TASK_H_

#include "takyon/takyon_extensions.h"

/** The task of every instance of group "node": ncycles barriers, each one checked. */
void barrierTask(TakyonGraph *graph, int group_id, int ncycles);

#endif /* TAKYON_EXAMPLES_GRAPH_BARRIER_TASK_H_ */
