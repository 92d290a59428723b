import { z } from 'zod';

// What the panel keeps in vscode.setState so a reloaded webview can ask for the right run, then
// restore the selection and the zoom. Validated on read: the stored value may be from an older build.

export const PanelSavedStateSchema = z.object({
  runId: z.string().min(1).max(200).optional(),
  selectedStepId: z.string().max(200).optional(),
  view: z.object({ k: z.number().finite(), x: z.number().finite(), y: z.number().finite() }).optional(),
  /** True while the view follows the graph (fit on every layout); false once the user zoomed or panned. */
  autoFit: z.boolean().optional(),
  /** The plan view the person chose (graph or list); absent: the default for the panel's size. */
  planView: z.enum(['graph', 'list']).optional(),
});
export type PanelSavedState = z.infer<typeof PanelSavedStateSchema>;

/** The saved state, or an empty one if it is missing or malformed. */
export function readSavedState(raw: unknown): PanelSavedState {
  const parsed = PanelSavedStateSchema.safeParse(raw);
  return parsed.success ? parsed.data : {};
}

/** The webview/ready message for a (possibly restored) panel. */
export function readyMessage(saved: PanelSavedState): { type: 'webview/ready'; runId?: string } {
  return saved.runId ? { type: 'webview/ready', runId: saved.runId } : { type: 'webview/ready' };
}
