// The "normalize key" of a tool name (docs/design.md, “Tool name resolution”): case, camelCase and separator drift fold to
// one snake_case key, so Write-File, writeFile and WRITE_FILE all map to write_file.

/** Namespaces models like to prefix ("functions.read_file"); stripped before normalizing. */
const NAMESPACE_PREFIX = /^(?:functions|function|tools|tool|default_api)[.:/]+/i;

/**
 * Folds a tool name to its normalize key: camelCase boundaries and every run of non-alphanumerics
 * become one `_`, the result is lower case and trimmed of `_`. A name with no letter or digit
 * yields '' (it names nothing).
 */
export function normalizeToolName(name: string): string {
  return name
    .trim()
    .replace(NAMESPACE_PREFIX, '')
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1_$2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1_$2')
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}
