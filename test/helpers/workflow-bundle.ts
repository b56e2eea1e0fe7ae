import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';

const noop = (): void => undefined;
const quietBundlerLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** One workflow bundle per test file: bundling takes seconds, and restarted workers reuse it. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: quietBundlerLogger });
  return bundle;
}
