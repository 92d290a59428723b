// Why an LLM request was made. The client sends it as a header and the trace records it on every
// `llm_request` event, so it lives with the LLM contract and the event schema reads it from here.

export const PURPOSES = ['planner', 'executor', 'replanner', 'tool-name-repair', 'tool-call-repair', 'aggregator', 'compact'] as const;

export type Purpose = (typeof PURPOSES)[number];
