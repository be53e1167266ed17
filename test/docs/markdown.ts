/** The fenced code block that follows `<!-- <marker>` in a Markdown text. */
export function blockAfter(text: string, marker: string): string {
  const at = text.indexOf(`<!-- ${marker}`);
  if (at < 0) throw new Error(`no <!-- ${marker} --> marker`);
  const open = text.indexOf('```', at);
  const start = text.indexOf('\n', open) + 1;
  return text.slice(start, text.indexOf('\n```', start));
}

export interface Step {
  command: string;
  /** The `# -> …` line after it, where `…` stands for any text. */
  expected?: string;
}

/** A shell block as commands (continuation lines joined to theirs), each with the answer its `# ->` comment shows. */
export function stepsOf(block: string): Step[] {
  const steps: Step[] = [];
  let pending = '';
  for (const line of block.split('\n')) {
    if (line.startsWith('# -> ')) {
      const last = steps.at(-1);
      if (last) last.expected = line.slice('# -> '.length);
      continue;
    }
    if (line.startsWith('#') || line.trim() === '') continue;
    pending += pending ? `\n${line}` : line;
    if (!line.endsWith('\\')) {
      steps.push({ command: pending });
      pending = '';
    }
  }
  return steps;
}

/** Whether `actual` reads as `expected`, each `…` in it standing for any text. */
export function matchesShape(actual: string, expected: string): boolean {
  const pattern = expected.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*');
  return new RegExp(`^${pattern}$`).test(actual.trim());
}
