/**
 * What a scenario is (docs/cluster.md, "Scenarios"): a named fault run while the load runs, given
 * the cluster, the load, the rows it adds and its timeline. The scenarios are in scenarios.ts and
 * upgrade/rolling-upgrade.ts.
 */
import type { Cluster } from './cluster';
import type { Row } from './checks/row';
import type { Load } from './load/load';

export interface ScenarioContext {
  cluster: Cluster;
  load: Load;
  rows: Row[];
  /** A line on the scenario's timeline (time since the fault). */
  mark(event: string): void;
}

export interface Scenario {
  name: string;
  what: string;
  run(ctx: ScenarioContext): Promise<void>;
}
