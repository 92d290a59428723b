import type { z } from 'zod';
import type { PlanSnapshotSchema, ReplanRecordSchema, StepSnapshotSchema, ToolCallSnapshotSchema } from './events';

// The folded plan state. Produced only by `applyEvent` (reducer.ts) from the run's events, in the
// host, the CLI and the webview alike, so every consumer sees the same plan. Every record type is
// derived from the zod schemas of the trace (events.ts), so the two cannot drift apart.

export type ToolCallRecord = z.infer<typeof ToolCallSnapshotSchema>;
export type StepState = z.infer<typeof StepSnapshotSchema>;
export type ReplanRecord = z.infer<typeof ReplanRecordSchema>;
type PlanSnapshotShape = z.infer<typeof PlanSnapshotSchema>;

export type StepStatus = StepState['status'];
export type ToolCallStatus = ToolCallRecord['status'];
export type NameResolution = ToolCallRecord['nameResolution'];
export type RunStatus = PlanSnapshotShape['status'];
/** Approval metadata of a call waiting for a person (docs/design.md, “Approvals”). */
export type ApprovalInfo = NonNullable<ToolCallRecord['approval']>;
export type Verdict = NonNullable<StepState['verdict']>;

/** The snapshot's fields, with steps kept in maps for the reducer's lookups. */
export interface PlanState extends Omit<PlanSnapshotShape, 'steps' | 'replacedSteps'> {
  /** Live steps in insertion order (replaced steps move to `replacedSteps`). */
  stepOrder: string[];
  steps: Map<string, StepState>;
  replacedSteps: Map<string, StepState>;
  lastSeq: number;
  /** Bumped whenever steps or edges change; the webview re-lays out only then. */
  structureVersion: number;
  /** The plan is still streaming (a resumed run plans again: docs/design.md, “Resuming a run”). */
  planPartial?: boolean;
}
