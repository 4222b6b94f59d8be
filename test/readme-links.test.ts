// The README is how a new engineer finds their way in: its links to its own sections and to files
// of this repository must lead somewhere. Anchors are made as GitHub makes them (lower case,
// punctuation dropped, spaces to hyphens, "-1", "-2" for repeated headings); links out of the
// repository (the shared spec beside it, web addresses) are not checked here.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCreditFile } from '../src/main/core/directory/credit-file';

const root = path.resolve(__dirname, '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');

/** The README without its fenced code blocks, whose `# comments` are not headings. */
const prose = readme.replace(/^```[\s\S]*?^```/gm, '');

function githubAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const repeats = new Map<string, number>();
  for (const [, heading = ''] of markdown.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const seen = repeats.get(slug);
    repeats.set(slug, (seen ?? -1) + 1);
    anchors.add(seen === undefined ? slug : `${slug}-${seen + 1}`);
  }
  return anchors;
}

describe('README links', () => {
  it('every link to a section names a heading of the README', () => {
    const anchors = githubAnchors(prose);
    const links = [...prose.matchAll(/\]\(#([^)\s]+)\)/g)].map(([, anchor = '']) => anchor);
    expect(links.length).toBeGreaterThan(20);
    expect(links.filter((anchor) => !anchors.has(anchor))).toEqual([]);
  });

  it('every link to a file of this repository names one that exists', () => {
    const targets = [...prose.matchAll(/\]\(([^)#\s]+)(?:#[^)\s]*)?\)/g)]
      .map(([, target = '']) => target)
      .filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith('../'));
    expect(targets.length).toBeGreaterThan(0);
    expect(targets.filter((target) => !existsSync(path.join(root, target)))).toEqual([]);
  });

  it('the credit-records example the README shows is the file in examples/, and it imports whole', () => {
    const block = /```csv\n(record,tax_id[\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const file = readFileSync(path.join(root, 'examples/credit-records.csv'), 'utf8');
    expect(file).toBe(block);
    const parsed = parseCreditFile(file, 'csv', { now: Date.parse('2026-11-24T12:00:00Z') });
    expect(parsed.errors).toEqual([]);
    expect(parsed.reports.map((r) => r.subject.tax_id).sort()).toEqual(['27312345671', '30712345671']);
  });
});
