// Small helpers shared by the reports: numbers with thousands separators, percentages, aligned tables.

/** 177604 -> "177,604". */
export function fmt(n) {
  if (n === null || n === undefined || Number.isNaN(n)) return '-'
  return Math.round(n).toLocaleString('en-US')
}

/** 0.8880 -> "88.8%". */
export function pct(ratio, digits = 1) {
  if (ratio === null || ratio === undefined || Number.isNaN(ratio)) return '-'
  return `${(ratio * 100).toFixed(digits)}%`
}

/** A signed number: +1,234 / -1,234. */
export function signed(n) {
  if (n === null || n === undefined || Number.isNaN(n)) return '-'
  return `${n >= 0 ? '+' : '-'}${fmt(Math.abs(n))}`
}

/**
 * Renders rows as an aligned table. `columns` is [{ title, align: 'left' | 'right' }]; rows are arrays of
 * strings. Returns lines, each indented by `indent`.
 */
export function table(columns, rows, indent = '  ') {
  const widths = columns.map((c, i) => Math.max(c.title.length, ...rows.map((r) => String(r[i]).length)))
  const cell = (s, i) => (columns[i].align === 'right' ? String(s).padStart(widths[i]) : String(s).padEnd(widths[i]))
  const lines = [indent + columns.map((c, i) => cell(c.title, i)).join('  ').trimEnd()]
  for (const r of rows) lines.push(indent + r.map((s, i) => cell(s, i)).join('  ').trimEnd())
  return lines
}
