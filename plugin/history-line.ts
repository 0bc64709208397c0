// The restore's history line (history.ts) placed at the restore's end, within its token budget: shared by the
// plugin and the route-2 pi extension (examples/pi-extension), which imports it from dist/plugin/.
import { countTokens } from '@openclaw/context-native'

/** The restore's token budget with room kept for the history line (and the newline before it). */
export function budgetBeside(maxTokens: number, line: string | undefined): number {
  return line ? maxTokens - countTokens(line) - 1 : maxTokens
}

/** The restore text with the history line at its end (the text as it is without one). */
export function withHistoryLine(text: string, line: string | undefined): string {
  return line ? `${text}\n${line}` : text
}
