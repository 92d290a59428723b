import { z } from 'zod';
import { McpServersSettingSchema } from './mcpServerEntry';
import { DEFAULT_PROTECTED_PATHS, protectedGlobProblem } from '../files/protectedPaths';
import { hiddenPathProblem } from './hiddenPathEntry';
import { headerNameProblem, headerValueProblem } from './headerChecks';
import { DEFAULT_INSTRUCTIONS_FILES } from './instructionsFiles';

// Every setting, once, with its default and validation. The VS Code adapter and the CLI's
// `--config` file both feed flat `cortex.*` keys through `parseConfig`, so an invalid value gives
// the same clear error in both. package.json's contributes.configuration mirrors these keys
// (a unit test checks they agree).

const positiveInt = (max: number) => z.number().int().min(1).max(max);
const nonNegativeInt = (max: number) => z.number().int().min(0).max(max);
const protectedGlobs = (defaults: readonly string[]) =>
  z
    .array(
      z.string().superRefine((glob, ctx) => {
        const problem = protectedGlobProblem(glob);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
    )
    .max(500)
    .default(() => [...defaults]);

/** Prices per million tokens of one model (cortex.llm.pricing). */
const ModelPriceSchema = z.strictObject({
  inputPerMTok: z.number().min(0),
  outputPerMTok: z.number().min(0),
  cachedInputPerMTok: z.number().min(0).optional(),
});

export const PolicyDecisionSchema = z.enum(['allow', 'deny', 'confirm', 'confirm-required']);
export type PolicyDecision = z.infer<typeof PolicyDecisionSchema>;

export const FlatConfigSchema = z
  .object({
    'cortex.llm.baseUrl': z
      .url({ message: 'must be an http(s) URL including /v1, e.g. http://127.0.0.1:11434/v1' })
      .refine((u) => /^https?:\/\//.test(u), 'must start with http:// or https://')
      .default('https://api.openai.com/v1'),
    'cortex.llm.model': z.string().trim().min(1, 'must name a model').default('gpt-4o-mini'),
    'cortex.llm.provider': z.enum(['openai-compatible', 'vscode-lm']).default('openai-compatible'),
    'cortex.llm.vscodeModel': z.string().trim().max(200).default(''),
    'cortex.llm.vscodeFallbackModels': z.array(z.string().trim().min(1).max(200)).max(10).default([]),
    'cortex.llm.fallbackModels': z.array(z.string().trim().min(1)).max(10).default([]),
    'cortex.llm.requestTimeoutSeconds': positiveInt(3600).default(120),
    'cortex.llm.streamIdleTimeoutSeconds': positiveInt(3600).default(60),
    'cortex.llm.maxRetries': nonNegativeInt(10).default(2),
    'cortex.llm.temperature': z.number().min(0).max(2).nullable().default(null),
    'cortex.llm.pricing': z.record(z.string().trim().min(1), ModelPriceSchema).default({}),
    'cortex.llm.headers': z
      .record(
        z.string(),
        z.string().superRefine((value, ctx) => {
          const problem = headerValueProblem(value);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
      )
      .superRefine((headers, ctx) => {
        for (const name of Object.keys(headers)) {
          const problem = headerNameProblem(name);
          if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
        }
      })
      .default({}),
    'cortex.llm.textToolCalls': z.enum(['auto', 'on', 'off']).default('auto'),
    'cortex.llm.images': z.enum(['auto', 'on', 'off']).default('auto'),
    'cortex.llm.query': z.record(z.string().min(1, 'a query parameter needs a name'), z.string()).default({}),
    'cortex.execution.maxParallelSteps': positiveInt(64).default(4),
    'cortex.execution.parallelToolCalls': z.boolean().default(true),
    'cortex.execution.toolExecution': z.enum(['sequential', 'parallel']).default('sequential'),
    'cortex.execution.maxToolConcurrency': positiveInt(64).default(4),
    'cortex.execution.toolTimeoutSeconds': positiveInt(3600).default(60),
    'cortex.execution.envPassthrough': z
      .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name (letters, digits, _)'))
      .max(100)
      .default([]),
    'cortex.sandbox.mode': z.enum(['auto', 'required', 'off']).default('auto'),
    'cortex.sandbox.network': z.boolean().default(false),
    'cortex.sandbox.hiddenPaths': z
      .array(
        z.string().superRefine((entry, ctx) => {
          const problem = hiddenPathProblem(entry);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
      )
      .max(500)
      .default([]),
    'cortex.limits.maxStepsPerTurn': positiveInt(1000).default(25),
    'cortex.limits.maxToolCallsPerTurn': positiveInt(1000).nullable().default(20),
    'cortex.limits.maxToolOutputBytes': z.number().int().min(256).max(10_000_000).default(32_768),
    'cortex.limits.maxReadFileBytes': z.number().int().min(1024).max(100_000_000).default(1_000_000),
    'cortex.limits.maxRunTokens': positiveInt(1_000_000_000_000).nullable().default(null),
    'cortex.limits.maxRunCost': z.number().positive().max(1_000_000).nullable().default(null),
    'cortex.context.windowTokens': z.number().int().min(1024).max(100_000_000).nullable().default(null),
    'cortex.context.reserveOutputTokens': nonNegativeInt(1_000_000).default(4096),
    'cortex.memory.searchLimit': nonNegativeInt(50).default(5),
    'cortex.instructions.files': z
      .array(z.string().min(1).max(500))
      .max(20)
      .default(() => [...DEFAULT_INSTRUCTIONS_FILES]),
    'cortex.replan.maxAttempts': nonNegativeInt(10).default(2),
    'cortex.verify.requireVerified': z.boolean().default(false),
    'cortex.planning.stream': z.boolean().default(true),
    'cortex.replan.revertFailedChanges': z.boolean().default(true),
    'cortex.checkpoints.enabled': z.boolean().default(true),
    'cortex.checkpoints.maxFileBytes': z
      .number()
      .int()
      .min(1024)
      .max(1_073_741_824)
      .default(10 * 1024 * 1024),
    'cortex.repair.toolNameAttempts': nonNegativeInt(5).default(1),
    'cortex.repair.toolCallAttempts': nonNegativeInt(5).default(1),
    'cortex.repair.maxVisibleToolNames': positiveInt(1000).default(64),
    'cortex.repair.maxCandidates': positiveInt(100).default(8),
    'cortex.repair.maxSchemaBytes': z.number().int().min(128).max(1_000_000).default(4096),
    'cortex.repair.validateSchema': z.boolean().default(true),
    'cortex.tools.aliases': z.record(z.string().min(1), z.string().min(1)).default({}),
    'cortex.tools.normalizeFallback': z.boolean().default(true),
    'cortex.approval.mode': z.enum(['call', 'plan']).default('call'),
    'cortex.policy.tools': z.record(z.string().min(1), PolicyDecisionSchema).default({}),
    'cortex.policy.commands': z
      .object({ allow: z.array(z.string()).default([]), deny: z.array(z.string()).default([]) })
      .default({ allow: [], deny: [] })
      .superRefine((rules, ctx) => {
        for (const pattern of [...rules.allow, ...rules.deny]) {
          try {
            new RegExp(pattern);
          } catch (error) {
            ctx.addIssue({ code: 'custom', message: `invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}` });
          }
        }
      }),
    'cortex.policy.protectedPaths': z
      .strictObject({ write: protectedGlobs(DEFAULT_PROTECTED_PATHS.write), read: protectedGlobs(DEFAULT_PROTECTED_PATHS.read) })
      .default(() => ({ write: [...DEFAULT_PROTECTED_PATHS.write], read: [...DEFAULT_PROTECTED_PATHS.read] })),
    'cortex.mcp.servers': McpServersSettingSchema,
    'cortex.mcp.allowReadOnly': z.array(z.string().min(1)).max(200).default([]),
    'cortex.mcp.maxTools': positiveInt(1000).default(64),
    'cortex.mcp.startTimeoutSeconds': positiveInt(600).default(30),
  })
  .strict()
  .superRefine((config, ctx) => {
    const window = config['cortex.context.windowTokens'];
    if (window !== null && config['cortex.context.reserveOutputTokens'] > window - 256) {
      ctx.addIssue({
        code: 'custom',
        path: ['cortex.context.reserveOutputTokens'],
        message: `must leave at least 256 tokens of cortex.context.windowTokens (${window}) for the prompt`,
      });
    }
  });

export type FlatConfig = z.infer<typeof FlatConfigSchema>;
export type ConfigKey = keyof FlatConfig;
export const CONFIG_KEYS = Object.keys(FlatConfigSchema.shape) as ConfigKey[];

/** Settings that only user/machine scope may set (a cloned repo's .vscode/settings.json cannot loosen them). */
export const SECURITY_KEYS: ConfigKey[] = [
  'cortex.policy.tools',
  'cortex.policy.commands',
  'cortex.policy.protectedPaths',
  'cortex.execution.envPassthrough',
  'cortex.sandbox.mode',
  'cortex.sandbox.network',
  'cortex.sandbox.hiddenPaths',
  'cortex.llm.headers',
  'cortex.llm.query',
  'cortex.mcp.servers',
  'cortex.mcp.allowReadOnly',
  'cortex.instructions.files',
  'cortex.approval.mode',
];

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid Cortex settings: ${issues.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Validates flat `cortex.*` settings and fills defaults. Unknown `cortex.*` keys are errors (a typo
 * should not silently do nothing); `undefined` values mean "use the default".
 */
export function parseConfig(input: Record<string, unknown>): FlatConfig {
  const cleaned: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) if (value !== undefined) cleaned[key] = value;
  const result = FlatConfigSchema.safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const key = issue.path.map(String).join('.') || '(root)';
        if (issue.code === 'unrecognized_keys')
          return issue.path.length === 0 ? `unknown setting(s): ${issue.keys.join(', ')}` : `${key}: unknown key(s) ${issue.keys.join(', ')}`;
        return `${key}: ${issue.message}`;
      }),
    );
  }
  return result.data;
}
