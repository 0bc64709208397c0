// Types of transcript.mjs for the plugin's TypeScript (plugin/claude-code.ts reads Claude Code sessions with it).

/** One entry of the active branch, as a pi session entry (`message`, `compaction`, ...). */
export interface TranscriptEntry {
  line: number
  fileIndex: number
  entry: Record<string, unknown>
}

/** A transcript parsed: pi (v1-v3) or Claude Code / Claude Agent SDK, its active branch as pi entries. */
export interface ParsedTranscript {
  format: 'v1' | 'v3' | 'claude-code'
  family: 'pi' | 'claude-code'
  version: number | string | null
  header: Record<string, unknown> | null
  entries: TranscriptEntry[]
  problems: Array<{ line: number; kind: string; detail: string }>
  stats: { lines: number; entries: number; recovered: number; offBranch: number; byType: Record<string, number> }
}

/** Parses the text of a session transcript; throws `TranscriptFormatError` (code `UnknownFormat`) for neither family. */
export function parseTranscript(text: string): ParsedTranscript
