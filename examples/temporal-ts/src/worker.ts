/**
 * A Temporal worker for the SLA workflow, with duetime activities.
 *
 *     node dist/src/worker.js --temporal 127.0.0.1:7233 --duetime 127.0.0.1:50051
 *
 * It polls task queue `duetime-sla-ts` (`--task-queue`) in namespace `default`
 * (`--namespace`) until SIGINT or SIGTERM, then finishes what it runs and
 * exits 0. `--journal FILE` appends a JSON line for every notification and
 * escalation; `--workflow-bundle FILE` runs workflow code bundled beforehand
 * (`bundleWorkflowCode`) instead of bundling it at start.
 */

import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { DuetimeClient } from '@duetime/client';
import { NativeConnection, Worker } from '@temporalio/worker';

import { createActivities } from './activities.js';

export const TASK_QUEUE = 'duetime-sla-ts';

/** Where the workflow code is, for `workflowsPath` and `bundleWorkflowCode`. */
export const WORKFLOWS_PATH = fileURLToPath(new URL('./workflows.js', import.meta.url));

export interface WorkerOptions {
  /** Temporal frontend, `HOST:PORT`. */
  temporal: string;
  namespace?: string;
  taskQueue?: string;
  /** duetime's gRPC address, `HOST:PORT`. */
  duetime: string;
  /** Seconds each duetime call may take, retries included (default 5). */
  timeoutSeconds?: number;
  journal?: string;
  /** A file written by `bundleWorkflowCode` (its `code`); unset: bundle `WORKFLOWS_PATH` now. */
  workflowBundle?: string;
}

/** A worker running `slaWorkflow` and the duetime activities; `close()` ends
 *  its connections once `run()` has returned. */
export async function createWorker(options: WorkerOptions): Promise<{ worker: Worker; close: () => Promise<void> }> {
  const duetime = new DuetimeClient({ address: options.duetime, timeoutMs: (options.timeoutSeconds ?? 5) * 1000 });
  const connection = await NativeConnection.connect({ address: options.temporal });
  const worker = await Worker.create({
    connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? TASK_QUEUE,
    ...(options.workflowBundle
      ? { workflowBundle: { codePath: options.workflowBundle } }
      : { workflowsPath: WORKFLOWS_PATH }),
    activities: createActivities({ duetime, ...(options.journal ? { journal: options.journal } : {}) }),
  });
  return {
    worker,
    close: async () => {
      await connection.close();
      duetime.close();
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      temporal: { type: 'string', default: '127.0.0.1:7233' },
      namespace: { type: 'string', default: 'default' },
      'task-queue': { type: 'string', default: TASK_QUEUE },
      duetime: { type: 'string', default: '127.0.0.1:50051' },
      timeout: { type: 'string', default: '5' },
      journal: { type: 'string' },
      'workflow-bundle': { type: 'string' },
    },
  });
  const timeoutSeconds = Number(values.timeout);
  if (!(timeoutSeconds > 0)) throw new Error(`--timeout: ${JSON.stringify(values.timeout)} is not a positive number of seconds`);
  const { worker, close } = await createWorker({
    temporal: values.temporal!,
    namespace: values.namespace!,
    taskQueue: values['task-queue']!,
    duetime: values.duetime!,
    timeoutSeconds,
    ...(values.journal ? { journal: values.journal } : {}),
    ...(values['workflow-bundle'] ? { workflowBundle: values['workflow-bundle'] } : {}),
  });
  console.log(`worker polling ${values['task-queue']} on ${values.temporal} (duetime at ${values.duetime})`);
  await worker.run(); // returns after SIGINT/SIGTERM, once the worker has shut down
  await close();
  console.log('worker stopped');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
