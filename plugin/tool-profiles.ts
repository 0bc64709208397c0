// The plugin's tools as OpenClaw's manifest declares them: one list that openclaw.plugin.json's `contracts.tools`
// and `toolMetadata` are written from (`node scripts/plugin-manifest.mjs`; __test__/plugin-settings.test.ts checks
// they agree). A tool added to the plugin is added here, and nowhere else in the manifest.
//
// OpenClaw 2026.9.6 leaves a plugin tool out of the built-in tool profiles `coding` and `messaging` unless the
// manifest names the profile in `toolMetadata.<tool>.profiles` (its docs/plugins/building-plugins.md): without it,
// `tools.profile: "coding"` (how operators limit a channel bot) sent neither tool while results were still parked.
// `minimal` is left out on purpose: an operator who chose it gets the core tools only, and the plugin notices
// (tools.ts: no parking without scratchpad_read; the guidance travels in the tool's own description).

/** Every tool the plugin can register (the manifest's `contracts.tools`), in the order it registers them. */
export const PLUGIN_TOOLS: readonly string[] = [
  'session_scratchpad',
  'scratchpad_read',
  'scratchpad_write',
  'scratchpad_edit',
  'scratchpad_list',
  'scratchpad_delete',
]

/** The built-in tool profiles that send every plugin tool (`full` sends all tools anyway; named for clarity). */
export const TOOL_PROFILES: readonly string[] = ['coding', 'messaging', 'full']

/** openclaw.plugin.json's `toolMetadata`, as PLUGIN_TOOLS and TOOL_PROFILES define it. */
export function toolMetadata(): Record<string, { profiles: string[] }> {
  return Object.fromEntries(PLUGIN_TOOLS.map((name) => [name, { profiles: [...TOOL_PROFILES] }]))
}
