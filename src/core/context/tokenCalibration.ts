// Our tokenizer is o200k_base; a provider may tokenize differently (Llama, Qwen, Claude…). When an
// endpoint reports `usage.prompt_tokens`, the ratio reported ÷ counted is learned per model and
// smoothed, and every later count for that model is scaled by it. Samples that cannot be a
// tokenizer difference are ignored: tiny prompts (fixed overheads dominate) and ratios outside
// 1/4…4 (an endpoint reporting a placeholder). The learned ratio stays within 0.5…2.

const MIN_SAMPLE_TOKENS = 200;
const MIN_SAMPLE_RATIO = 0.25;
const MAX_SAMPLE_RATIO = 4;
const MIN_RATIO = 0.5;
/** The largest ratio ever learned: a prompt within limit ÷ MAX_RATIO fits whatever is learned. */
export const MAX_RATIO = 2;
/** Weight of a new sample in the moving average. */
const SMOOTHING = 0.3;

export class TokenCalibration {
  private readonly ratios = new Map<string, number>();

  /** Reported ÷ counted for `model` (1 until a usable sample arrived). */
  ratio(model: string): number {
    return this.ratios.get(model) ?? 1;
  }

  /** Learns from one request: `counted` by our tokenizer, `reported` by the endpoint. Returns whether the sample was used. */
  observe(model: string, counted: number, reported: number): boolean {
    if (!Number.isFinite(reported) || counted < MIN_SAMPLE_TOKENS || reported <= 0) return false;
    const sample = reported / counted;
    if (sample < MIN_SAMPLE_RATIO || sample > MAX_SAMPLE_RATIO) return false;
    const previous = this.ratios.get(model);
    const next = previous === undefined ? sample : previous + SMOOTHING * (sample - previous);
    this.ratios.set(model, Math.min(MAX_RATIO, Math.max(MIN_RATIO, next)));
    return true;
  }

  /** What the endpoint will count for a prompt we counted as `counted`. */
  estimate(model: string, counted: number): number {
    return Math.ceil(counted * this.ratio(model));
  }
}
