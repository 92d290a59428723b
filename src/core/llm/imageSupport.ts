// Whether images from tools may be sent to the model (docs/design.md, “MCP tools”, results):
// cortex.llm.images `on` sends them, `off` never does, `auto` (the default) only when every model
// that may answer a request (cortex.llm.model and each of cortex.llm.fallbackModels, since a
// failover resends the same messages) is known to take images. An endpoint that gets an image its
// model cannot take refuses the whole request, so unknown models are treated as text-only.

export type ImagesMode = 'auto' | 'on' | 'off';

export type ImageSupport = { accepted: true } | { accepted: false; reason: string };

/**
 * Model ids known to take images, matched against the id's last `/` segment, lower-cased
 * (`openai/gpt-4o` and `gpt-4o-2024-08-06` both match `gpt-4o`). Kept to families whose every
 * current variant takes images, so `auto` does not send one to a model that would refuse it.
 */
const KNOWN_IMAGE_MODELS: readonly RegExp[] = [
  /^gpt-4o/,
  /^gpt-4\.1/,
  /^gpt-4\.5/,
  /^gpt-4-turbo/,
  /^gpt-5/,
  /^chatgpt-4o/,
  /^o1(-\d|$)/,
  /^o3(-\d|$|-pro)/,
  /^o4-mini/,
  /^claude-(3|opus-4|sonnet-4|haiku-4|4)/,
  /^gemini-/,
  /^gemma-?3/,
  /^llava/,
  /^bakllava/,
  /^pixtral/,
  /^mistral-(small|medium)-(3|2505|2506|latest)/,
  /^qwen[\d.]*-?vl/,
  /^qvq/,
  /^llama-?3\.2-?\d+b-?vision/,
  /^llama3\.2-vision/,
  /^llama-?4/,
  /^minicpm-?v/,
  /^moondream/,
  /^grok-(2-vision|4)/,
  /^internvl/,
];

/** True when `model` is a model Cortex knows to take images. */
export function isKnownImageModel(model: string): boolean {
  const id = model.trim().toLowerCase().split('/').pop() ?? '';
  return KNOWN_IMAGE_MODELS.some((pattern) => pattern.test(id));
}

export interface ImageSupportSettings {
  mode: ImagesMode;
  provider: 'openai-compatible' | 'vscode-lm';
  model: string;
  fallbackModels: readonly string[];
}

/** Whether this run's requests may carry images, and if not, a sentence saying why and what to change. */
export function imageSupport(settings: ImageSupportSettings): ImageSupport {
  if (settings.provider === 'vscode-lm') return { accepted: false, reason: 'models from VS Code are sent text only' };
  if (settings.mode === 'off') return { accepted: false, reason: 'cortex.llm.images is "off"; set it to "on" or "auto" to send images' };
  if (settings.mode === 'on') return { accepted: true };
  const unknown = [settings.model, ...settings.fallbackModels].filter((model) => !isKnownImageModel(model));
  if (unknown.length === 0) return { accepted: true };
  const names = unknown.map((model) => `"${model}"`).join(', ');
  const subject = unknown.length > 1 ? `the models ${names} are` : `the model ${names} is`;
  return { accepted: false, reason: `${subject} not known to take images; set cortex.llm.images to "on" to send them` };
}
