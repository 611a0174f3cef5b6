/* SPDX-License-Identifier: MIT */
#ifndef TAKYON_EXAMPLES_GRAPH_PIPELINE_TASK_H_
#define TAKYON_EXAMPLES_GRAPH_PIPELINE_TASK_H_

#include "takyon/takyon_extensions.h"

/** The task of every instance of group "stage": ncycles messages through the pipeline. */
void pipelineTask(TakyonGraph *graph, int group_id, int ncycles);

#endif /* TAKYON_EXAMPLES_GRAPH_PIPELINE_TASK_H_ */
