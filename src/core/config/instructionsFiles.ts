/** The project instruction files read by default, in this order (docs/design.md, “Project instructions”). */
export const DEFAULT_INSTRUCTIONS_FILES = ['AGENTS.md', '.github/copilot-instructions.md', 'CLAUDE.md'] as const;
